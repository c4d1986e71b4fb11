"""Documentation tools: run the Python blocks of Markdown files, check the public links."""
