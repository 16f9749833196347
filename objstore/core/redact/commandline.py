"""The command-line rules of :mod:`objstore.core.redact`'s table, moved out of :mod:`.passwords`
as they were (red18) and spliced into ``passwords.PASSWORD_RULES`` at their places:

``COMMAND_LINE_RULES``: a password given to a command on its command line (``sshpass -p X``,
``mysql -pX``, ``curl -u user:X``, ``--password X``), read from standard input fed by an
``echo`` or a here-string (``echo X | sudo -S``, ``passwd <<< X``), and in SQL
(``IDENTIFIED BY 'X'``, ``PASSWORD 'X'``), with the regex fragments they share.

The ``mem-command`` and ``age-input`` rules (mem's own command lines) are in :mod:`.memcommand`;
the ``.pgpass`` and ``.netrc`` password rules (a password file shown or written on a command line) in
:mod:`.passwordfiles`, spliced in at their place (the end of the table).
"""

from __future__ import annotations

from functools import partial

from objstore.core.redact.checks import (cli_secret_ok, looks_secret, mysql_password_ok, net_secret_ok,
                                         sql_bare_ok, sql_literal_ok)
from objstore.core.redact.passwordfiles import PASSWORD_FILE_RULES
from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.keywords import credential_name
from objstore.core.redact.scanners import scan_at, scan_command_options
from objstore.core.rxcache import escape

# mysql / mysqldump / mariadb ... -pSECRET (the password attached to -p; ``-p`` alone prompts,
# ``-P 3306`` is the port); the command and -p on one line, before any ; | &.
_MYSQL_HEAD = (r"(?:mysql(?<![A-Za-z0-9_.\-]mysql)|mariadb(?<![A-Za-z0-9_.\-]mariadb))"
               r"(?:dump|admin|import|show|check|pump|slap|sh|-dump|-admin|-import|-show|-check|-slap)?+"
               r"(?![A-Za-z0-9_.])[^\n\r;|&]{0,512}?[ \t]-p")
_MYSQL_CMD = _MYSQL_HEAD + r"[\"']?(?P<secret>[^\s\"'`;&|<>()]{1,256}+)"
#: cli21: '-p'…'' / -p"…" quoted whole, blanks and all (the shell passes what is between the quotes); the
#: quotes raw or JSON-escaped ('-p\\"…\\"' in a tool call's JSON)
_MYSQL_QUOTED = (_MYSQL_HEAD + r"(?P<bs>\\{0,3})(?P<q>[\"'])(?P<secret>(?:(?!(?P=bs)(?P=q))[^\n\r]){1,256}+)"
                 r"(?P=bs)(?P=q)")


# ---- passwords passed to a command on its command line ------------------------------
# An argument: optionally quoted, up to a blank, quote or shell operator.
#: v4r23 (V5): the opening quote raw or JSON-escaped ('--body \\"X\\"' in a tool call's JSON), as _HERE_SECRET's
_ARG = r"(?:\\{0,3}[\"'])?(?P<secret>(?:[^\s\"'`;&|<>()\\]|\\(?!\\{0,2}[\"'])){1,256}+)"
_WORD = r"[\"']?[^\s;|&\"']{1,256}+[\"']?"            # one positional argument
_FLAGS_RUN = r"(?:[ \t]{1,4}-[A-Za-z]{1,8}+){1,4}+"   # a command's short-option clusters, bounded


def _flags_with(letter: str) -> str:
    """A look-ahead body: one of the next (at most 4) option clusters holds ``letter``."""
    return r"(?:[ \t]{1,4}-[A-Za-z]{1,8}+){0,3}[ \t]{1,4}-[A-Za-z]{0,7}" + letter


_ARGS_BEFORE = r"[^\n\r;|&]{0,256}?[ \t]"          # the command's other arguments, on the same command


def _cmd(*names: str) -> str:
    """``(?:n1(?<!Xn1)|n2(?<!Xn2)...)``: a command name on a word boundary."""
    return "(?:" + "|".join(f"{escape(n)}(?<![A-Za-z0-9_.\\-]{escape(n)})" for n in names) + r")(?![A-Za-z0-9_.\-])"


def _cmd_family(prefix: str, *suffixes: str, optional: bool = True) -> str:
    """``prefix(?:s1|s2...)`` as a command name on a word boundary, written so
    the pattern starts with one literal (``re`` then finds it with its fast
    literal search): ``_cmd_family("mongo", "sh", "dump")`` is mongo, mongosh
    or mongodump; ``optional=False``: a suffix is required."""
    alts = "|".join(map(escape, suffixes))
    return (f"{escape(prefix)}(?<![A-Za-z0-9_.\\-]{escape(prefix)})(?:{alts})" + ("?" if optional else "")
            + r"(?![A-Za-z0-9_.\-])")


# 'sudo -S' / 'passwd' / ... read the password from standard input: a here-string feeds it
_SUDO_S = r"sudo(?<![A-Za-z0-9_.\-]sudo)(?:[ \t]{1,4}-[A-Za-z]{1,8}+){0,4}?[ \t]{1,4}-[A-Za-z]{0,7}S"
_STDIN_PW_CMDS = ("(?:" + _SUDO_S + "|" + _cmd("passwd", "smbpasswd", "kinit")
                  + r"|--password-stdin(?![A-Za-z0-9_\-])|--passphrase-fd[ \t=]0(?![0-9]))")
#: red22: the word's opening quote raw or JSON-escaped ('<<< \\"pw\\"' in a tool call's JSON; cli21 had it in a copy
#: for its own rule only)
_HERE = r"[^\n\r;|&<]{0,256}?<<<[ \t]{0,4}(?:\$(?=\\{0,3}['\"]))?(?:\\{0,3}[\"'])?"
#: the word; red22: a backslash in it, not one that escapes its closing quote ('<<< \\"pw\\"')
_HERE_SECRET = r"(?P<secret>(?:[^\s\"'`;&|<>()\\]|\\(?!\\{0,2}[\"'])){1,256}+)"


#: cred20: a password option of keytool / jarsigner and its value: after blanks, or after ':' when the
#: modifier is not one of the docs' sources ('-storepass:env NAME', '-keypass:file PATH' name no password;
#: keytool refuses any other modifier, but '-storepass:S3cret' typed still holds one)
_KEYTOOL_PASS = Lazy(r"(?<![A-Za-z0-9_\-])-(?:(?:src|dest)?(?:store|key)pass|new)"
                     r"(?:[ \t]{1,4}|:(?!(?:env|file)[ \t]))" + _ARG, FLAGS)
def _cookie_ok(v: str) -> bool:
    """cli21: a cookie's value (the first of ``v``'s ``name=value; …``
    pairs, RFC 6265 s4.2.1) that reads as a session credential, not a
    setting (``lang=en``, ``theme=dark``, ``PART_NUMBER=ROCKET_0001``):
    :func:`~.checks.cli_secret_ok` and random-looking
    (:func:`~.checks.looks_secret`) or 8+ characters mixing a digit with
    both letter cases (``CookieSess9abcdef``)."""
    first = v.split(";", 1)[0].strip()
    if not cli_secret_ok(first):
        return False
    return looks_secret(first) or (len(first) >= 8 and any(c.isdigit() for c in first)
                                   and any(c.islower() for c in first) and any(c.isupper() for c in first))


#: cli21: ssh-keygen's passphrase options '-P passphrase' / '-N new_passphrase' and their value
_SSH_KEYGEN_PASS = Lazy(r"(?<![A-Za-z0-9_\-])-[PN][ \t]{0,4}" + _ARG, FLAGS)
#: cli21: commands that read a secret from standard input, fed by a here-string (_HERE)
STDIN_SECRET_CMDS = (r"(?:gcloud(?<![A-Za-z0-9_.\-]gcloud)[^\n\r;|&<]{0,128}?[ \t]secrets[ \t]{1,4}"
                      r"(?:create|versions[ \t]{1,4}add)(?![A-Za-z0-9_.\-])"
                      "|" + _cmd("gh") + r"[ \t]{1,4}secret[ \t]{1,4}set(?![A-Za-z0-9_.\-])"
                      "|" + _cmd("docker") + r"[ \t]{1,4}secret[ \t]{1,4}create(?![A-Za-z0-9_.\-])"
                      "|" + _cmd("openssl") + r"[ \t]{1,4}passwd(?![A-Za-z0-9_.\-])"
                      "|" + _cmd("read") + "(?=" + _flags_with("s") + ")"
                      # v4r23 (tester V4): the stores the pipe rule knows that read the value from standard input
                      "|" + _cmd("vercel") + r"[ \t]{1,4}env[ \t]{1,4}add(?![A-Za-z0-9_.\-])"
                      "|" + _cmd("wrangler") + r"(?:[ \t]{1,4}pages)?[ \t]{1,4}secret[ \t]{1,4}put(?![A-Za-z0-9_.\-])"
                      "|" + _cmd("doppler") + r"[ \t]{1,4}secrets[ \t]{1,4}set(?![A-Za-z0-9_.\-])"
                      "|" + _cmd("firebase") + r"[ \t]{1,4}functions:secrets:set(?![A-Za-z0-9_.\-])"
                      # red27 (test26b W7): the stores the pipe rule knows that a here-string feeds as well
                      "|" + _cmd("keyring") + r"[ \t]{1,4}set(?![A-Za-z0-9_.\-])"
                      "|" + _cmd("secret-tool") + r"[ \t]{1,4}store(?![A-Za-z0-9_.\-]))")
#: redb22: 'echo|printf [-n…] ['%s'] ' before a value piped on (printf(1): the format '%s', '%s\\n', raw or
#: JSON-escaped, then the value as its argument); bash's $'…' quoting
_PIPE_HEAD = (_cmd("echo", "printf") + r"(?:[ \t]{1,4}-[neE]{1,3}+){0,3}"
              r"(?:[ \t]{1,4}(?:\\{0,3}[\"'])?%s(?:\\{1,3}n)?(?:\\{0,3}[\"'])?)?[ \t]{1,4}(?:\$(?='))?")
#: redb22: secret stores that read the secret from standard input (the sources in the rule below); a
#: package runner before the command ('npx wrangler …'), sudo; red23: also what a here-document feeds them (heredocs)
_PIPE_RUNNER = r"(?:(?:sudo|npx|bunx|yarn|pnpm(?:[ \t]{1,4}(?:exec|dlx))?)[ \t]{1,4})?"
PIPE_STORE_CMDS = (_PIPE_RUNNER + r"(?:gh[ \t]{1,4}secret[ \t]{1,4}set"
                    r"|wrangler(?:[ \t]{1,4}pages)?[ \t]{1,4}secret[ \t]{1,4}put"
                    r"|vercel[ \t]{1,4}env[ \t]{1,4}add"
                    r"|docker[ \t]{1,4}secret[ \t]{1,4}create"
                    r"|security(?:[ \t]{1,4}-[A-Za-z]{1,4})?[ \t]{1,4}add-(?:generic|internet)-password"
                    r"|pass[ \t]{1,4}insert"
                    r"|firebase[ \t]{1,4}functions:secrets:set"
                    r"|gcloud[^\n\r;|&<]{0,128}?[ \t]secrets[ \t]{1,4}(?:create|versions[ \t]{1,4}add)"
                    r"|doppler[ \t]{1,4}secrets[ \t]{1,4}set"
                    # red23 (Y4): kubectl's '--from-file=KEY=/dev/stdin', vault's 'KEY=-', aws's 'file:///dev/stdin',
                    # secret-tool, keyring, 'htpasswd -i', 'openssl passwd -stdin', ansible-vault encrypt_string
                    r"|kubectl[^\n\r;|&<]{0,64}?[ \t]create[ \t]{1,4}secret"
                    r"|vault[ \t]{1,4}kv[ \t]{1,4}(?:put|patch)"     # not 'vault write': a policy's text
                    r"|aws[^\n\r;|&<]{0,128}?[ \t]secretsmanager[ \t]{1,4}(?:create-secret|put-secret-value|update-secret)"
                    r"|secret-tool[ \t]{1,4}store|keyring[ \t]{1,4}set"
                    r"|htpasswd[ \t]{1,4}(?:-[A-Za-z]{1,8}[ \t]{1,4}){0,4}?-[A-Za-z]{0,7}i"
                    r"|openssl[ \t]{1,4}passwd|ansible-vault[ \t]{1,4}encrypt_string)(?![A-Za-z0-9_.\-])")
#: curl's ``-u`` value after its option (blanks or ``=``, a quote raw or JSON-escaped): the user, ``:``, the
#: password (red26; test27 V30: an escaped quote inside the password, ``admin:Zq7\\"mm2x``, is part of it)
_USER_PASS = (r"(?:[ \t]+|=)?(?:\\{0,3}[\"'])?[^\s:\"'`\\]{1,128}:"
              r"(?P<secret>(?:[^\s\"'`;&|<>()\\]|\\(?:\\\\)?[\"'](?=[^\s\"'`\\;&|<>()])|\\(?!\\{0,2}[\"'])){1,256}+)")
#: red36: HTTPie's and xh's command names with the blank after them (a rule's starts)
_HTTPIE = ("http ", "https ", "httpie ", "xh ", "xhs ")
#: red26: a quoted argument of several words, its quotes raw or JSON-escaped (the closing one as the opening)
_QUOTED_WORDS = r"(?P<bs>\\{0,3})(?P<q>[\"'])(?P<secret>[^\"'\\\r\n`$|;&<>]{1,256}+)(?P=bs)(?P=q)"


def quoted_words_ok(v: str) -> bool:
    """red26: a quoted argument of several words fed to a password reader is
    the password (not a reference or a placeholder: :func:`cli_secret_ok`);
    a single word is the other rules'."""
    v = v.strip()
    return " " in v and cli_secret_ok(v)


_r = make_rule   # the table below is aligned to this short name

#: the command-line rules, in their order of the table (a tie in priority goes to the earlier)
COMMAND_LINE_RULES: list[Rule] = [
    _r("cli-password",
       "sshpass(1) '-p password' (the password on the command line) https://linux.die.net/man/1/sshpass",
       _cmd("sshpass") + _ARGS_BEFORE + r"-p[ \t]*" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("sshpass",)),
    _r("cli-password",
       "registry and cloud logins with '-p|--password <password>': docker/podman/nerdctl/buildah/skopeo/"
       "helm/oras/crane login, az login, oc login, cf login "
       "https://docs.docker.com/reference/cli/docker/login/ https://learn.microsoft.com/cli/azure/reference-index#az-login",
       _cmd("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "az", "oc", "cf")
       + r"[^\n\r;|&]{0,128}?[ \t]login(?![A-Za-z0-9_.\-])" + _ARGS_BEFORE + r"(?:-p|--password)(?:[ \t]+|=)" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("login",)),
    _r("cli-password",
       "curl(1) '-u, --user <user:password>' and '-U, --proxy-user <user:password>' (red26: its quote JSON-escaped "
       "too; test27 V30: an escaped quote inside the password, 'admin:Zq7\\\"mm2x', is part of it) https://curl.se/docs/manpage.html",
       _cmd("curl") + _ARGS_BEFORE + r"(?:-u|--user|-U|--proxy-user)" + _USER_PASS,
       priority=45, check=cli_secret_ok, anchors=("curl",)),
    _r("cli-password",
       "red36 (test35b T10): HTTPie's and xh's '-a, --auth <user:password>', curl's '-u' by another name "
       "https://httpie.io/docs/cli/authentication https://github.com/ducaale/xh",
       r"(?<![^\s;|&(`\"'])" + _cmd("http", "https", "httpie", "xh", "xhs") + r"(?=[ \t])" + _ARGS_BEFORE
       + r"(?:-a|--auth)" + _USER_PASS,
       # (the command and its blank: a URL's "http" tries nothing; a 2 KB prompt of URLs paid +1.4 % without it)
       priority=45, check=cli_secret_ok, anchors=_HTTPIE, scan=scan_at(*_HTTPIE)),
    _r("cli-password",
       "redis-cli '-a <password>' / '--pass <password>' (https://redis.io/docs/latest/develop/tools/cli/)",
       _cmd("redis-cli", "valkey-cli", "keydb-cli") + _ARGS_BEFORE + r"(?:-a|--pass)(?:[ \t]+|=)" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("-cli",)),
    _r("cli-password",
       "openssl(1) '-k password' and '-pass|-passin|-passout pass:password' (openssl-passphrase-options(1); "
       "env:, file:, fd:, stdin are sources, not passwords) https://docs.openssl.org/master/man1/openssl-passphrase-options/",
       _cmd("openssl") + _ARGS_BEFORE + r"(?:-k|-pass|-passin|-passout|-password)[ \t]+[\"']?(?:pass:)?"
       r"(?P<secret>[^\s\"'`;&|<>()]{1,256}+)",
       priority=45, check=cli_secret_ok, anchors=("openssl",)),
    _r("cli-password",
       "htpasswd(1) '-b' batch mode: 'htpasswd -b passwdfile user password', 'htpasswd -nb user password' "
       "https://httpd.apache.org/docs/2.4/programs/htpasswd.html",
       # -n prints instead of writing a file: one positional (user) before the password, else two
       _cmd("htpasswd") + r"(?=" + _flags_with("b") + r")(?:(?=" + _flags_with("n") + r")" + _FLAGS_RUN
       + r"[ \t]{1,4}" + _WORD + r"|(?!" + _flags_with("n") + r")" + _FLAGS_RUN + r"[ \t]{1,4}" + _WORD
       + r"[ \t]{1,4}" + _WORD + r")[ \t]{1,4}" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("htpasswd",)),
    _r("cli-password",
       "sudo(8) '-S' reads the password from standard input: 'echo|printf <password> | sudo -S' "
       "https://www.sudo.ws/docs/man/sudo.man/",
       _cmd("echo", "printf") + r"(?:[ \t]+-[neE]+)*[ \t]+" + _ARG + r"[\"']?[ \t]*\|[ \t]*sudo[ \t]+"
       r"(?:-[A-Za-z]+[ \t]+)*?-[A-Za-z]*S",
       priority=45, check=cli_secret_ok, anchors=("sudo",)),
    _r("cli-password",
       "'--password <password>' / '--passwd' / '--pass' / '--passphrase' (gpg) / '--http-password' ... with a "
       "blank (the '=' form is generic-secret): an "
       "option-argument after a blank, POSIX utility syntax guideline 6 "
       "https://pubs.opengroup.org/onlinepubs/9799919799/basedefs/V1_chap12.html",
       r"--(?:(?:http|https|ftp|proxy|db|admin|root|user|new|old|store|key|bind)-)?pass(?:w(?:or)?d|phrase)?[ \t]+"
       + _ARG,
       priority=46, check=cli_secret_ok, anchors=("-pass",)),
    _r("mysql-password",
       "MySQL 'Command Options for Connection Establishment' --password[=password], -p[password] (no space: "
       "the password; -p alone prompts) https://dev.mysql.com/doc/refman/8.0/en/connection-options.html",
       _MYSQL_CMD, priority=45, check=mysql_password_ok, anchors=("mysql", "mariadb")),
    _r("mysql-password",
       "MySQL '-p[password]' quoted for the shell, blanks inside ('-p'my pw'' is one argument: the password 'my "
       "pw'), cli21 https://dev.mysql.com/doc/refman/8.0/en/connection-options.html "
       "https://www.gnu.org/software/bash/manual/bash.html#Quoting",
       _MYSQL_QUOTED, priority=45, check=mysql_password_ok, anchors=("mysql", "mariadb")),
    # ---- redact6: more command-line, here-string, SQL and chat forms ----
    _r("cli-password",
       "MongoDB shell and database tools '-p, --password <password>' (mongosh: '-p' alone prompts; the tools "
       "take '--password=<password>, -p=<password>') https://www.mongodb.com/docs/mongodb-shell/reference/options/ "
       "https://www.mongodb.com/docs/database-tools/mongodump/",
       _cmd_family("mongo", "sh", "dump", "restore", "export", "import", "stat", "top", "files") + _ARGS_BEFORE
       + r"(?:-p(?:[ \t]+|=)?|--password(?:[ \t]+|=))" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("mongo",)),
    _r("cli-password",
       "rabbitmqctl(8) 'add_user <username> <password>', 'change_password <username> <newpassword>', "
       "'authenticate_user <username> <password>' (the password omitted: read from standard input) "
       "https://www.rabbitmq.com/docs/man/rabbitmqctl.8",
       _cmd("rabbitmqctl") + _ARGS_BEFORE + r"(?:add_user|change_password|authenticate_user)[ \t]{1,4}" + _WORD
       + r"[ \t]{1,4}" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("rabbitmqctl",)),
    _r("cli-password",
       "Windows 'net user <username> <password> /add' (the password given; '*' prompts) "
       "https://learn.microsoft.com/en-us/previous-versions/windows/it-pro/windows-server-2012-r2-and-2012/cc771865(v=ws.11)",
       r"net(?<![a-z0-9_.\-]net)[ ]users?[ \t]{1,4}(?:\"[^\"\n\r]{1,64}\"|[^\s/\"*]{1,64}+)[ \t]{1,4}" + _ARG,
       ci=True, priority=45, check=net_secret_ok, anchors=("net use",)),
    _r("cli-password",
       "Windows 'net use [\\\\computer\\share] [password | *] [/user:[domain\\]user]' (the password after "
       "the share, or after /user:) "
       "https://learn.microsoft.com/en-us/previous-versions/windows/it-pro/windows-server-2012-r2-and-2012/gg651155(v=ws.11)",
       r"net(?<![a-z0-9_.\-]net)[ ]use[ \t]" + _ARGS_BEFORE
       + r"(?:\\\\[^\s\"]{1,256}+|/user:[^\s\"]{1,128}+)[ \t]{1,4}" + _ARG,
       ci=True, priority=45, check=net_secret_ok, anchors=("net use",)),
    _r("cli-password",
       "a password read from standard input fed by a bash here-string ('<<< word', bash(1) 'Here Strings'): "
       "sudo -S, passwd, smbpasswd, kinit, '--password-stdin', gpg '--passphrase-fd 0' "
       "https://www.gnu.org/software/bash/manual/bash.html#Here-Strings https://www.sudo.ws/docs/man/sudo.man/",
       _STDIN_PW_CMDS + _HERE + _HERE_SECRET,
       priority=45, check=cli_secret_ok, anchors=("<<<",),
       scan=scan_at("sudo", "passwd", "smbpasswd", "kinit", "--password-stdin", "--passphrase-fd")),
    _r("cli-password",
       "chpasswd(8) / chgpasswd(8) read 'user:password' lines from standard input: a here-string or "
       "'echo|printf user:password |' feeds them (the name is kept) https://man7.org/linux/man-pages/man8/chpasswd.8.html",
       _cmd("chpasswd", "chgpasswd") + _HERE + r"[^\s:\"'`;&|<>()]{1,64}+:" + _HERE_SECRET,
       priority=45, check=cli_secret_ok, anchors=("<<<",), scan=scan_at("chpasswd", "chgpasswd")),
    _r("cli-password",
       "chpasswd(8) / chgpasswd(8) read 'user:password' lines from standard input: "
       "'echo|printf user:password | chpasswd' https://man7.org/linux/man-pages/man8/chpasswd.8.html",
       _cmd("echo", "printf") + r"(?:[ \t]{1,4}-[neE]{1,3}+){0,3}[ \t]{1,4}(?:\$(?='))?[\"']?[^\s:\"'`;&|<>()]{1,64}+:"
       + _HERE_SECRET + r"[\"']?[ \t]{0,4}\|[ \t]{0,4}(?:sudo[ \t]{1,4})?(?:chpasswd|chgpasswd)(?![A-Za-z0-9_.\-])",
       priority=45, check=cli_secret_ok, anchors=("passwd",), scan=scan_at("echo", "printf")),
    _r("cli-password",
       "passwd(1) '--stdin' / smbpasswd(8) '-s' / '--password-stdin' read the password from standard "
       "input: 'echo|printf <password> | passwd --stdin' https://man7.org/linux/man-pages/man1/passwd.1.html "
       "https://www.samba.org/samba/docs/current/man-html/smbpasswd.8.html",
       _cmd("echo", "printf") + r"(?:[ \t]{1,4}-[neE]{1,3}+){0,3}[ \t]{1,4}(?:\$(?='))?" + _ARG
       + r"[\"']?[ \t]{0,4}\|[ \t]{0,4}(?:sudo[ \t]{1,4})?(?:(?:passwd|smbpasswd)(?![A-Za-z0-9_.\-])"
       r"|[^\n\r;|&]{0,256}?--password-stdin(?![A-Za-z0-9_\-]))",
       priority=45, check=cli_secret_ok, anchors=("passwd", "--password-stdin"),
       scan=scan_at("echo", "printf")),
    _r("cli-password",
       "red26: a quoted password of several words ('echo \"correct horse battery\" | sudo -S …') fed by "
       "echo|printf to a command that reads it from standard input: sudo -S, passwd, smbpasswd, "
       "'--password-stdin' (docker login), the secret stores of the rule below "
       "https://www.sudo.ws/docs/man/sudo.man/ https://docs.docker.com/reference/cli/docker/login/",
       _PIPE_HEAD + _QUOTED_WORDS + r"[ \t]{0,4}\|[ \t]{0,4}(?:" + _SUDO_S
       + r"|(?:sudo[ \t]{1,4})?(?:passwd|smbpasswd)(?![A-Za-z0-9_.\-])"
       r"|[^\n\r;|&]{0,256}?--password-stdin(?![A-Za-z0-9_\-])|" + PIPE_STORE_CMDS + ")",
       priority=45, check=quoted_words_ok, anchors=("echo", "printf"), scan=scan_at("echo", "printf")),
    # a family with one literal prefix is left to re's literal search; the others are tried only where
    # one of their names is (scan_at)
    *(_r("cli-password", source, (cmds if isinstance(cmds, str) else _cmd(*cmds)) + _ARGS_BEFORE + opt + _ARG,
         priority=45, check=cli_secret_ok, anchors=anchors,
         scan=None if isinstance(cmds, str) else scan_at(*(starts or anchors)))
      for cmds, opt, anchors, source, *starts in (
          (_cmd("sqlcmd"), r"-P[ \t]*", ("sqlcmd",),
           "sqlcmd '-P password' https://learn.microsoft.com/en-us/sql/tools/sqlcmd/sqlcmd-utility"),
          (_cmd_family("ldap", "search", "modify", "add", "delete", "passwd", "whoami", "modrdn", "compare", "exop",
                       "url", optional=False), r"-w[ \t]*", ("ldap",),
           "OpenLDAP ldapsearch(1) '-w passwd' (simple bind password; -W prompts) "
           "https://www.openldap.org/software/man.cgi?query=ldapsearch"),
          (("zip", "unzip", "zipcloak"), r"-P[ \t]*", ("zip", "unzip"),
           "zip(1) '-P password, --password password', unzip(1) '-P password' "
           "https://linux.die.net/man/1/zip https://linux.die.net/man/1/unzip"),
          (_cmd_family("7z", "a", "r", "z"), r"-p", ("7z",),
           "7-Zip '-p{Password}' switch (alone: prompts) https://7-zip.opensource.jp/chm/cmdline/switches/password.htm"),
          (_cmd_family("mosquitto_", "pub", "sub", "rr", optional=False), r"(?:-P|--pw)[ \t]+", ("mosquitto_",),
           "mosquitto_pub(1) '-P, --pw password' https://mosquitto.org/man/mosquitto_pub-1.html"),
          (("plink", "pscp", "psftp", "putty"), r"-pw[ \t]+", ("-pw",),
           "PuTTY 3.11.3.8 '-pw: specify a password' https://the.earth.li/~sgtatham/putty/0.81/htmldoc/Chapter3.html",
           "plink", "pscp", "psftp", "putty"),
          (("xfreerdp", "wlfreerdp", "sdl-freerdp", "sdl-freerdp3", "xfreerdp3"), r"/p:", ("freerdp",),
           "FreeRDP '/p:<password>' https://github.com/FreeRDP/FreeRDP/wiki/CommandLineInterface",
           "xfreerdp", "wlfreerdp", "sdl-freerdp"),
          (_cmd("rdesktop"), r"-p[ \t]*", ("rdesktop",),
           "rdesktop(1) '-p <password>' ('-p -' reads it from standard input) https://linux.die.net/man/1/rdesktop"),
          (("mysqladmin", "mariadb-admin"), r"password[ \t]{1,4}", ("mysqladmin", "mariadb-admin"),
           "mysqladmin 'password new_password' (sets a new password) "
           "https://dev.mysql.com/doc/refman/8.0/en/mysqladmin.html"),
      )),
    _r("cli-password",
       "keytool '-storepass [:env|:file] arg', '-keypass', '-srcstorepass', '-deststorepass', '-srckeypass', "
       "'-destkeypass', '-new' and jarsigner '-storepass', '-keypass' (:env / :file name a variable or a file: "
       "kept; every password option of the command, cred20) "
       "https://docs.oracle.com/en/java/javase/21/docs/specs/man/keytool.html "
       "https://docs.oracle.com/en/java/javase/21/docs/specs/man/jarsigner.html",
       r"(?:keytool|jarsigner)(?:(?<![A-Za-z0-9_.\-]keytool)|(?<![A-Za-z0-9_.\-]jarsigner)|(?<=\\[nrt]keytool)"
       r"|(?<=\\[nrt]jarsigner))(?![A-Za-z0-9_.\-])", priority=45, check=cli_secret_ok, anchors=("keytool", "jarsigner"),
       scan=partial(scan_command_options, _KEYTOOL_PASS, check=cli_secret_ok)),
    _r("cli-password",
       "smbclient(1) '-U|--user=[DOMAIN\\]USERNAME[%PASSWORD]' (smbcacls, smbget the same) "
       "https://www.samba.org/samba/docs/current/man-html/smbclient.1.html",
       _cmd_family("smb", "client", "cacls", "get", "tree", "cquotas", optional=False) + _ARGS_BEFORE
       + r"(?:-U|--user(?:name)?)(?:[ \t]+|=)?[\"']?[^\s%\"'`;&|<>()]{1,128}+%" + _HERE_SECRET,
       priority=45, check=cli_secret_ok, anchors=("smb",)),
    # ---- cli21: secret stores and password tools (tester finding W3) ----
    _r("cli-password",
       "ssh-keygen(1) '-P passphrase' (the old passphrase) and '-N new_passphrase' (every one of the command: "
       "'ssh-keygen -p -P old -N new') https://man.openbsd.org/ssh-keygen.1",
       _cmd("ssh-keygen"), priority=45, check=cli_secret_ok, anchors=("ssh-keygen",),
       scan=partial(scan_command_options, _SSH_KEYGEN_PASS, check=cli_secret_ok)),
    _r("cli-password",
       "macOS security(1) 'add-generic-password|add-internet-password ... -w password' ('-w' last: prompts) "
       "https://ss64.com/mac/security.html (man 1 security)",
       _cmd("security") + r"[ \t]{1,4}add-(?:generic|internet)-password" + _ARGS_BEFORE + r"-w[ \t]{1,4}" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("-password",), scan=scan_at("security")),
    _r("cli-password",
       "GitHub CLI 'gh secret set <name> -b, --body <string>' (the secret's value) "
       "https://cli.github.com/manual/gh_secret_set",
       # blanks between the words as between gh and 'secret' (mend22: 'gh  secret  set' was missed); the
       # anchors, as mem's launchers' (memcommand._anchors): the phrase, or 'secret' and what else may follow
       _cmd("gh") + r"[ \t]{1,4}secret[ \t]{1,4}set" + _ARGS_BEFORE + r"(?:-b|--body)(?:[ \t]{1,4}|=)" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("secret set", "secret  ", "secret\t", "secret \t"),
       scan=scan_at("gh")),
    _r("cli-password",
       "secret stores' value on the command line, whatever its name: 'aws ssm put-parameter --value', 'aws "
       "secretsmanager create-secret|put-secret-value|update-secret --secret-string', 'az keyvault secret set "
       "--value' https://docs.aws.amazon.com/cli/latest/reference/ssm/put-parameter.html "
       "https://docs.aws.amazon.com/cli/latest/reference/secretsmanager/put-secret-value.html "
       "https://learn.microsoft.com/cli/azure/keyvault/secret#az-keyvault-secret-set",
       r"(?:aws(?<![A-Za-z0-9_.\-]aws)[^\n\r;|&]{0,128}?[ \t](?:ssm[ \t]{1,4}put-parameter|secretsmanager[ \t]{1,4}"
       r"(?:create-secret|put-secret-value|update-secret))|az(?<![A-Za-z0-9_.\-]az)[^\n\r;|&]{0,128}?[ \t]keyvault"
       r"[ \t]{1,4}secret[ \t]{1,4}set)(?![A-Za-z0-9_.\-])" + _ARGS_BEFORE + r"--(?:value|secret-string)(?:[ \t]{1,4}|=)"
       + _ARG, priority=45, check=cli_secret_ok, anchors=("put-parameter", "secretsmanager", "keyvault"),
       scan=scan_at("aws", "az")),
    _r("cli-password",
       "OpenSSL 'openssl passwd [options] password' (the password to hash, the last arguments; '-stdin' and "
       "'-in file' read it) https://docs.openssl.org/master/man1/openssl-passwd/",
       _cmd("openssl") + r"[ \t]{1,4}passwd(?:[ \t]{1,4}(?:-(?:salt|in)[ \t]{1,4}[^\s;|&<>]{1,256}+"
       r"|-[A-Za-z0-9]{1,8}+))*+[ \t]{1,4}" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("passwd",), scan=scan_at("openssl")),
    _r("cli-password",
       "a secret read from standard input fed by a bash here-string ('<<< word', bash(1) 'Here Strings'): "
       "'gcloud secrets create|versions add --data-file=-', 'gh secret set', 'docker secret create NAME -', "
       "'openssl passwd -stdin', bash 'read -s' (silent: a password prompt); v4r23 (V4): 'vercel env add NAME "
       "[env]' https://vercel.com/docs/cli/env , 'wrangler secret put', 'doppler secrets set', 'firebase "
       "functions:secrets:set' https://www.gnu.org/software/bash/manual/bash.html#Here-Strings "
       "https://cloud.google.com/sdk/gcloud/reference/secrets/versions/add https://cli.github.com/manual/gh_secret_set "
       "https://www.gnu.org/software/bash/manual/bash.html#index-read ; red27: 'keyring set SERVICE USER' "
       "https://pypi.org/project/keyring/ , 'secret-tool store' (libsecret)",
       STDIN_SECRET_CMDS + _HERE + _HERE_SECRET,
       priority=45, check=cli_secret_ok, anchors=("<<<",), scan=scan_at("gcloud", "gh", "docker", "openssl", "read",
                                                          "vercel", "wrangler", "doppler", "firebase", "keyring",
                                                          "secret-tool")),
    _r("cli-password",
       "a secret piped by echo/printf into a secret store that reads it from standard input (redb22, tester "
       "finding X8): 'gh secret set NAME' https://cli.github.com/manual/gh_secret_set , 'wrangler secret put NAME' "
       "https://developers.cloudflare.com/workers/wrangler/commands/#secret , 'vercel env add NAME [env]' "
       "https://vercel.com/docs/cli/env , 'docker secret create NAME -' "
       "https://docs.docker.com/reference/cli/docker/secret/create/ , 'security add-generic-password ... -w' "
       "(macOS security(1)), 'pass insert' https://git.zx2c4.com/password-store/about/ , 'firebase "
       "functions:secrets:set NAME' https://firebase.google.com/docs/functions/config-env , 'gcloud secrets "
       "create|versions add --data-file=-', 'doppler secrets set NAME' https://docs.doppler.com/docs/cli ; "
       "printf's format '%s' before the value skipped, its quotes raw or JSON-escaped; red23 (Y4): 'kubectl create "
       "secret generic N --from-file=K=/dev/stdin', 'vault kv put PATH K=-' "
       "https://developer.hashicorp.com/vault/docs/commands/kv/put , 'aws secretsmanager put-secret-value "
       "--secret-string file:///dev/stdin', 'secret-tool store' (libsecret), 'keyring set SERVICE USER' "
       "https://pypi.org/project/keyring/ , 'htpasswd -i' (htpasswd(1)), 'openssl passwd -stdin', 'ansible-vault "
       "encrypt_string' https://docs.ansible.com/ansible/latest/cli/ansible-vault.html",
       _PIPE_HEAD + r"(?:\\{0,3}[\"'])?(?P<secret>[^\s\"'`;&|<>()\\]{1,256}+)(?:\\{0,3}[\"'])?[ \t]{0,4}\|[ \t]{0,4}"
       + PIPE_STORE_CMDS,
       # gated on 'echo' / 'printf' (2 stdlib gates; the stores' 9 names were 6, +3 % of the stdlib prefilter's CPU)
       priority=45, check=cli_secret_ok, anchors=("echo", "printf"), scan=scan_at("echo", "printf")),
    _r("cli-password",
       "v4r23 (tester V4): a key written by echo/printf to Rails' key file, 'config/master.key' or "
       "'config/credentials/<env>.key' https://guides.rubyonrails.org/security.html#custom-credentials",
       _PIPE_HEAD + r"(?:\\{0,3}[\"'])?(?P<secret>[^\s\"'`;&|<>()\\]{1,256}+)(?:\\{0,3}[\"'])?[ \t]{0,4}>{1,2}[ \t]{0,4}"
       r"(?:\\{0,3}[\"'])?[^\s\"';&|<>]{0,256}?(?:master|credentials/[a-z0-9_\-]{1,64})\.key(?![A-Za-z0-9_.\-])",
       priority=45, check=cli_secret_ok, anchors=("master.key", "credentials/"), scan=scan_at("echo", "printf")),
    _r("cli-password",
       "curl(1) '-b, --cookie <data|filename>'' given as 'name=value' (data, not a file): the value "
       "https://curl.se/docs/manpage.html#-b",
       _cmd("curl") + _ARGS_BEFORE + r"(?:-b|--cookie)(?:[ \t]{1,4}|=)[\"']?[A-Za-z0-9_.!#$%&*+^`|~\-]{1,128}+="
       + _HERE_SECRET, priority=45, check=_cookie_ok,
       # gated on the option, not on 'curl': tried after every 'curl' it doubled the curl rules' cost (+24 % of
       # bench_redact's 10 MB CPU)
       anchors=("-b", "--cookie")),
    # a session cookie is a bearer credential (RFC 6265 s8.4: whoever holds it is the session); red22: under its own
    # name (cli21 had named it bearer-token: a name needs a corpus example, and cli21 could not regenerate the corpus)
    _r("http-cookie",
       "the value of an HTTP 'Cookie:' / 'Set-Cookie:' header, its first cookie's name kept (cookie-pairs "
       "'name=value; name2=value2', RFC 6265 s4.1, s4.2) https://www.rfc-editor.org/rfc/rfc6265#section-4.2",
       r"(?<![A-Za-z0-9_\-])(?:set-)?cookie[ \t]{0,4}:[ \t]{0,8}[A-Za-z0-9_.!#$%&*+^`|~\-]{1,128}+="
       r"(?P<secret>[^\s\"'`\\;,][^\r\n\"'`\\]{0,4095}+)",
       ci=True, priority=45, check=_cookie_ok, anchors=("cookie",)),
    _r("sql-password",
       "MySQL 'CREATE USER ... IDENTIFIED [WITH plugin] BY 'auth_string'' (ALTER USER, GRANT the same); "
       "Oracle 'IDENTIFIED BY password' https://dev.mysql.com/doc/refman/8.0/en/create-user.html "
       "https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/CREATE-USER.html",
       r"identified(?<![a-z0-9_]identified)(?:[ \t]{1,4}with[ \t]{1,4}[a-z0-9_]{1,64}+)?[ \t]{1,4}by[ \t]{1,4}"
       r"(?P<q>\\{0,3}['\"])(?P<secret>[^'\"\\\n\r]{1,256}+)\\{0,3}(?P=q)",
       ci=True, priority=44, check=sql_literal_ok, anchors=("identified",)),
    _r("sql-password",
       "Oracle 'CREATE USER u IDENTIFIED BY password' (an unquoted password) "
       "https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/CREATE-USER.html",
       r"identified(?<![a-z0-9_]identified)[ \t]{1,4}by[ \t]{1,4}(?P<secret>[a-z0-9_#$!@%^*+=.\-]{1,128}+)"
       r"(?![^\s;,)])",
       ci=True, priority=44, check=sql_bare_ok, anchors=("identified",)),
    _r("sql-password",
       "PostgreSQL 'CREATE ROLE|USER ... [WITH] [ENCRYPTED] PASSWORD 'password'' (ALTER ROLE the same); "
       "MySQL 'SET PASSWORD [FOR user] = 'auth_string'' https://www.postgresql.org/docs/current/sql-createrole.html "
       "https://dev.mysql.com/doc/refman/8.0/en/set-password.html",
       r"password(?<![a-z0-9_]password)(?:[ \t]{1,4}for[ \t]{1,4}[^=\n\r;]{1,128}?[ \t]{0,4}=|[ \t]{0,4}=)?"
       r"[ \t]{1,4}(?P<q>\\{0,3}')(?P<secret>[^'\\\n\r]{1,256}+)(?P=q)"
       # red30: not a qualifier before a label's sign ("DB password 'prod': X" is the generic rule's; SQL puts no
       # sign after the literal; '--' after it opens an SQL comment, so only a dash then a blank is a sign)
       r"(?![ \t]{0,4}(?:[:=\uff1a\uff1d]|-[ \t]))",
       ci=True, priority=44, check=sql_literal_ok, anchors=("password",)),
    # ---- password files shown or written on a command line (red20): passwordfiles.py ----
    *PASSWORD_FILE_RULES,
    # ---- red34b (test34 T5): forms the shell hook stored in the clear ----
    _r("cli-password",
       "AWS CLI 'aws configure set <setting> <value> [--profile P]' of a secret setting (aws_secret_access_key, "
       "aws_session_token, any name holding secret/token/password), whatever the value's length "
       "https://docs.aws.amazon.com/cli/latest/reference/configure/set.html",
       _cmd("aws") + r"[^\n\r;|&]{0,128}?[ \t]configure[ \t]{1,4}set[ \t]{1,4}"
       r"(?:--[\w\-]{1,32}[ \t]{1,4}[^\s;|&]{1,128}[ \t]{1,4}){0,3}[\w.\-]{0,64}(?:secret|token|password)[\w.\-]{0,64}[ \t]{1,4}" + _ARG,
       priority=45, check=cli_secret_ok, anchors=("configure",)),
    _r("cli-password",
       "'-password <password>' / '-passwd' with one dash and a blank (influx(1) 1.x, Java tools): the option-argument "
       "https://docs.influxdata.com/influxdb/v1/tools/influx-cli/use-influx-cli/",
       r"-passw(?<![A-Za-z0-9_\-]-passw)(?:or)?d[ \t]{1,4}" + _ARG,
       priority=46, check=cli_secret_ok, anchors=("-passw",)),
    _r("cli-password",
       "a password file option fed by a process substitution that prints the password: "
       "'--vault-password-file <(echo X)' (ansible), '--password-file=<(printf X)' "
       "https://www.gnu.org/software/bash/manual/bash.html#Process-Substitution",
       r"pass(?<![A-Za-z0-9_]pass)(?:w(?:or)?d|phrase)?[\w\-]{0,32}(?:[ \t]{1,4}|=)<\([ \t]{0,4}" + _PIPE_HEAD + _ARG,
       priority=45, check=cli_secret_ok, anchors=("<(",)),
]
