"""Environment variables that change how a program starts or what it loads (issue #13).

A project layer's ``env`` reaches every shell command, including read-only ones the session
runs without asking; ``BASH_ENV=./x.sh`` would make each ``ls`` source a project script. So a
variable on this list is accepted only from the user's own layer or the host (an explicit
decision), and a project layer naming it is refused with
:class:`~robota.framework.settings.errors.UntrustedSettingError`.

This is a denylist: variables no program reads at start-up stay available to projects.
Names are compared case-insensitively (``http_proxy`` and ``HTTP_PROXY`` are both read).
"""

from __future__ import annotations

__all__ = ["STARTUP_PREFIXES", "STARTUP_VARIABLES", "is_startup_variable"]

STARTUP_VARIABLES: frozenset[str] = frozenset(
    {
        # shells
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "IFS",
        "CDPATH",
        "PS4",
        "SHELL",
        "ZDOTDIR",
        "HOME",
        "TMPDIR",
        "PATH",
        "GCONV_PATH",
        # language runtimes
        "NODE_OPTIONS",
        "NODE_PATH",
        "NODE_EXTRA_CA_CERTS",
        "PERLLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "CLASSPATH",
        # programs other programs start
        "EDITOR",
        "VISUAL",
        "PAGER",
        "MANPAGER",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        # where the network goes and whom TLS trusts
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "FTP_PROXY",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "OPENSSL_CONF",
        # where programs look for their own configuration (git reads $XDG_CONFIG_HOME/git/config)
        "XDG_CONFIG_HOME",
        "XDG_CONFIG_DIRS",
        "XDG_DATA_HOME",
        "XDG_DATA_DIRS",
        "XDG_CACHE_HOME",
        "XDG_STATE_HOME",
        "XDG_RUNTIME_DIR",
        "GNUPGHOME",
        "GIT_CONFIG",
        "INPUTRC",
        "TERMINFO",
        "TERMINFO_DIRS",
        "LOCPATH",
        "NLSPATH",
        "HOSTALIASES",
        "RESOLV_HOST_CONF",
        "MAKEFLAGS",
        "MAKEFILES",
        "CC",
        "CXX",
        "RUSTC_WRAPPER",
        "RUSTC",
        "RUSTFLAGS",
        "GOFLAGS",
        "GOPROXY",
        "DOCKER_HOST",
        "KUBECONFIG",
        "SUDO_ASKPASS",
        # configuration files or default options of the reading commands themselves
        "RIPGREP_CONFIG_PATH",
        "GREP_OPTIONS",
        "TAR_OPTIONS",
        "ZIPOPT",
        "UNZIP",
        "WGETRC",
        "CURL_HOME",
        "LESSKEY",
        "MAGIC",
    }
)
"""Exact names (upper case)."""

STARTUP_PREFIXES: tuple[str, ...] = (
    "LD_",
    "DYLD_",
    "PYTHON",
    "GIT_",
    "PERL5",
    "RUBY",
    "SSH_",
    "NPM_CONFIG_",
    "BASH_FUNC_",
    "PIP_",
    "UV_",
    "CARGO_",
    "GEM_",
    "BUNDLE_",
    "COMPOSER_",
    "JAVA_",
    "MAVEN_",
    "GRADLE_",
    "DOTNET_",
    "COMPLUS_",
    "LUA_",
)
"""Name prefixes (upper case): the dynamic loader, Python, Git, Perl, Ruby, SSH, package
managers and build tools, and ``BASH_FUNC_name%%`` (an exported bash function: it replaces a
command such as ``ls`` or ``git`` in every shell started with it)."""


def is_startup_variable(name: str) -> bool:
    """True when ``name`` changes how a program starts or what it loads.

    >>> is_startup_variable("BASH_ENV"), is_startup_variable("ld_preload")
    (True, True)
    >>> is_startup_variable("BASH_FUNC_ls%%"), is_startup_variable("XDG_CONFIG_HOME")
    (True, True)
    >>> is_startup_variable("MY_APP_MODE")
    False
    """
    upper = name.upper()
    if "%" in name or "(" in name or "=" in name:
        return True  # not a plain variable name: an exported function or a malformed entry
    return upper in STARTUP_VARIABLES or upper.startswith(STARTUP_PREFIXES)
