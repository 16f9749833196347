"""The command-line rules of :mod:`objstore.core.redact`'s table, moved out of :mod:`.passwords`
as they were (red18) and spliced into ``passwords.PASSWORD_RULES`` at their places:

``COMMAND_LINE_RULES``: a password given to a command on its command line (``sshpass -p X``,
``mysql -pX``, ``curl -u user:X``, ``--password X``), read from standard input fed by an
``echo`` or a here-string (``echo X | sudo -S``, ``passwd <<< X``), and in SQL
(``IDENTIFIED BY 'X'``, ``PASSWORD 'X'``), with the regex fragments they share.

``MEM_COMMAND_RULES``, the ``mem-command`` rule: the values on mem's own command lines, which
the shell hook and an agent's Bash tool call capture verbatim (test17 T10, red17; every way to
run mem and every argument that carries a secret: red18).

What is a value (docs/cli.md of each command):

* ``mem remember KEY VALUE`` when the command says ``--sensitivity secret`` or KEY names a
  credential (:func:`~.scanners.credential_name`: ``…/github-token``, ``…/db-password``): VALUE,
  also a VALUE starting with ``-`` (remember takes it as the value); VALUE ``-`` (standard
  input): what feeds it (below);
* ``mem forget --match TEXT`` (``--match=TEXT``) and ``mem scan TEXT``: TEXT;
* ``mem sealed import KEY -`` and any ``--passphrase-file -`` (``vault``, ``seal``,
  ``unseal``, ``sealed show``): what feeds standard input.

What feeds standard input: the arguments of an ``echo`` / ``printf`` before the command in
its pipeline (``printf 1234 | age -r … | mem sealed import K -``; a ``printf`` format made of
``%s`` and escapes alone is kept), a here-string after it (``<<< X``), a here-document's
lines (``<<EOF`` … ``EOF``), and for ``--passphrase-file <(echo X)`` the process
substitution's ``echo`` / ``printf``.

How mem is run (:data:`_MEM_LAUNCHERS`): ``mem`` as a word or a path's last part
(``/opt/bin/mem``, ``env MEM_HOME=x mem``), a variable naming it (``$M``, ``"$MEM"``,
``${MEM_BIN}``) and the checkout's module (``python -m cmds``); ``--home DIR`` may stand before
the command.  A word is read as bash reads it: quoted ``'…'`` / ``"…"``, and ANSI-C ``$'…'`` / ``$"…"``
one word with its ``$`` (test18b V3), a backslash-newline continuation removed (V7).  Also (V4,
V8): ``< <(echo X)``, ``yes X |``, ``cat > f <<< X`` before ``< f``, what feeds ``xargs -I{} mem … {}``, and
``NAME=X`` / ``export NAME=X`` on the line when the value read is ``$NAME``.  A VALUE that only
expands a variable or reads a file (``"$TOKEN"``, ``"$(cat f)"``, ``$(< f)``) holds no secret in
the text and is kept, as is a redaction marker (a second pass takes nothing).
"""

from __future__ import annotations

import re
from functools import partial

from objstore.core.redact.checks import (cli_secret_ok, mysql_password_ok, net_secret_ok, sql_bare_ok,
                                         sql_literal_ok)
from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import credential_name, scan_at, scan_command_options

# mysql / mysqldump / mariadb ... -pSECRET (the password attached to -p; ``-p`` alone prompts,
# ``-P 3306`` is the port); the command and -p on one line, before any ; | &.
_MYSQL_CMD = (r"(?:mysql(?<![A-Za-z0-9_.\-]mysql)|mariadb(?<![A-Za-z0-9_.\-]mariadb))"
              r"(?:dump|admin|import|show|check|pump|slap|sh|-dump|-admin|-import|-show|-check|-slap)?+"
              r"(?![A-Za-z0-9_.])[^\n\r;|&]{0,512}?[ \t]-p[\"']?"
              r"(?P<secret>[^\s\"'`;&|<>()]{1,256}+)")


# ---- passwords passed to a command on its command line ------------------------------
# An argument: optionally quoted, up to a blank, quote or shell operator.
_ARG = r"[\"']?(?P<secret>[^\s\"'`;&|<>()]{1,256}+)"
_WORD = r"[\"']?[^\s;|&\"']{1,256}+[\"']?"            # one positional argument
_FLAGS_RUN = r"(?:[ \t]{1,4}-[A-Za-z]{1,8}+){1,4}+"   # a command's short-option clusters, bounded


def _flags_with(letter: str) -> str:
    """A look-ahead body: one of the next (at most 4) option clusters holds ``letter``."""
    return r"(?:[ \t]{1,4}-[A-Za-z]{1,8}+){0,3}[ \t]{1,4}-[A-Za-z]{0,7}" + letter


_ARGS_BEFORE = r"[^\n\r;|&]{0,256}?[ \t]"          # the command's other arguments, on the same command


def _cmd(*names: str) -> str:
    """``(?:n1(?<!Xn1)|n2(?<!Xn2)...)``: a command name on a word boundary."""
    return "(?:" + "|".join(f"{re.escape(n)}(?<![A-Za-z0-9_.\\-]{re.escape(n)})" for n in names) + r")(?![A-Za-z0-9_.\-])"


def _cmd_family(prefix: str, *suffixes: str, optional: bool = True) -> str:
    """``prefix(?:s1|s2...)`` as a command name on a word boundary, written so
    the pattern starts with one literal (``re`` then finds it with its fast
    literal search): ``_cmd_family("mongo", "sh", "dump")`` is mongo, mongosh
    or mongodump; ``optional=False``: a suffix is required."""
    alts = "|".join(map(re.escape, suffixes))
    return (f"{re.escape(prefix)}(?<![A-Za-z0-9_.\\-]{re.escape(prefix)})(?:{alts})" + ("?" if optional else "")
            + r"(?![A-Za-z0-9_.\-])")


# 'sudo -S' / 'passwd' / ... read the password from standard input: a here-string feeds it
_SUDO_S = r"sudo(?<![A-Za-z0-9_.\-]sudo)(?:[ \t]{1,4}-[A-Za-z]{1,8}+){0,4}?[ \t]{1,4}-[A-Za-z]{0,7}S"
_STDIN_PW_CMDS = ("(?:" + _SUDO_S + "|" + _cmd("passwd", "smbpasswd", "kinit")
                  + r"|--password-stdin(?![A-Za-z0-9_\-])|--passphrase-fd[ \t=]0(?![0-9]))")
_HERE = r"[^\n\r;|&<]{0,256}?<<<[ \t]{0,4}(?:\$(?=['\"]))?[\"']?"
_HERE_SECRET = r"(?P<secret>[^\s\"'`;&|<>()]{1,256}+)"


#: cred20: a password option of keytool / jarsigner and its value: after blanks, or after ':' when the
#: modifier is not one of the docs' sources ('-storepass:env NAME', '-keypass:file PATH' name no password;
#: keytool refuses any other modifier, but '-storepass:S3cret' typed still holds one)
_KEYTOOL_PASS = Lazy(r"(?<![A-Za-z0-9_\-])-(?:(?:src|dest)?(?:store|key)pass|new)"
                     r"(?:[ \t]{1,4}|:(?!(?:env|file)[ \t]))" + _ARG, FLAGS)
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
       "curl(1) '-u, --user <user:password>' and '-U, --proxy-user <user:password>' https://curl.se/docs/manpage.html",
       _cmd("curl") + _ARGS_BEFORE + r"(?:-u|--user|-U|--proxy-user)(?:[ \t]+|=)?[\"']?[^\s:\"'`]{1,128}:"
       r"(?P<secret>[^\s\"'`;&|<>()]{1,256}+)",
       priority=45, check=cli_secret_ok, anchors=("curl",)),
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
       r"[ \t]{1,4}(?P<q>\\{0,3}')(?P<secret>[^'\\\n\r]{1,256}+)(?P=q)",
       ci=True, priority=44, check=sql_literal_ok, anchors=("password",)),
]


# ---- mem's own command lines (test17 T10, red18) -------------------------------------------------
#: the commands whose arguments may carry a value (the sub-command word after the launcher)
_MEM_SUBS = r"(?P<sub>remember|forget|scan|sealed|seal|unseal|vault)(?![a-z0-9_\-])"
#: '--home DIR' / '--home=DIR' between the launcher and the command
_MEM_HOME = r"(?:[ \t]{1,4}--home(?:=|[ \t]{1,4})[^\s;|&\"']{1,256}+)?[ \t]{1,4}"
#: (launcher pattern over the lowercased text, its anchors): each pattern starts with a literal
#: ('mem', '$', '-m') that ``re`` searches for; the anchors gate the window (every match holds one).  A
#: variable is one that names mem: '$M', '$MEM', '$MEM_BIN', '${MEM}' ('$DOCKER scan image' is none; the
#: words remember/forget/scan as anchors would hand the matcher most transcript lines)
_MEM_LAUNCHERS = (
    (r"mem(?<![a-z0-9_\-.]mem)", ("mem remember", "mem forget", "mem scan", "mem --home", "mem seal",
                                  "mem unseal", "mem vault")),
    (r"\$(?:\{(?:m|mem[a-z0-9_]{0,60})\}|(?:m|mem[a-z0-9_]{0,60}+)(?![a-z0-9_]))(?:\\?\")?",
     ("$m ", "$m\"", "$m\\", "${m}", "$mem", "${mem")),
    (r"-m[ \t]{1,4}cmds(?![a-z0-9_.\-])", ("-m cmds",)),
)
#: where the command ends: a line's end (or its JSON escape), ';', '&', '|', a JSON string's end ('"}', '",')
_MEM_END = Lazy(r"\n|\r|\\[nr]|;|&|\||\"(?=[ \t]*[,}\]])", FLAGS)
#: a single-quoted word, bash's ANSI-C quoting ``$'…'`` (backslash escapes inside, bash(1) "QUOTING") and
#: its locale translation ``$"…"`` (raw or JSON-escaped ``$\"…\"``): one word, the ``$`` with it (test18b V3)
_QUOTED = (r"\$'(?:[^'\\\n]|\\.)*'|\$\\\"(?:[^\\\n]|\\(?!\"))*\\\"|\$\"[^\"\n]*\"|'[^'\n]*'")
#: the words of a pipeline before a command, as a shell reads them: a ``cut`` where one starts (a line's end or
#: its JSON escape, ';', '&&', '||', '&', a JSON string's start '"command": "'), a quoted word (a line break
#: inside it is none; not a JSON key), a command substitution, a pipe's '|', a run of other characters
_MEM_PIPE_TOK = Lazy(r"(?P<cut>\r|\n|\\[nr]|;|&&|\|\||&|\":[ \t]{0,4}\")|\$\([^()\n]{0,256}\)|" + _QUOTED
                 + r"|\\\"(?:[^\\\n]|\\(?!\"))*\\\"|\"[^\"\n]*\"(?![ \t]*:)|\||[^\s'\"|;&\\]+|\\", FLAGS)
#: one argument: a command substitution, a pipe's '|', quoted ('…', "…", a JSON-escaped \"…\"), or a run of other characters
_MEM_ARG = Lazy(r"\$\([^()\n]{0,256}\)|" + _QUOTED
                + r"|\\\"(?:[^\\\n]|\\(?!\"))*\\\"|\"[^\"\n]*\"|\||[^\s'\"|]+", FLAGS)
#: the options that take a value (cmds/remember.py, forget.py, scan.py, sealed.py, _vault.py)
_MEM_VALUE_OPTS = frozenset(("--kind", "--trust", "--sensitivity", "--valid-from", "--expect", "--relates-to",
                         "--contradicts", "--derived-from", "--rollup-of", "--session", "--agent", "--file",
                         "--home", "--match", "--passphrase-file", "--version", "-o", "--output"))
#: a value that only expands a variable or reads a file ('"$TOKEN"', '"$(cat f)"', '$(< f)'): no secret in the text
_MEM_EXPANSION = Lazy(r"\\?[\"']?(?:\$[a-z_][a-z0-9_]*|\$\{[a-z_][a-z0-9_]*\}|\$\([ \t]*(?:cat[ \t]+|<[ \t]*)"
                  r"[^\s()|;&]+[ \t]*\))\\?[\"']?", FLAGS)
#: a printf format of '%s' and escapes alone (printf '%s\n' X): kept
_MEM_FORMAT_ONLY = Lazy(r"\\?[\"']?(?:%[sb]|\\+[nrt0])+\\?[\"']?", FLAGS)
#: an output or input redirection word ('>', '>>', '2>', '>f', '<', '<f'; not '<<' / '<<<' / '<('), its operator
_MEM_REDIRECT = Lazy(r"[0-9&]?(?:>>?|<(?![<(]))", FLAGS)
#: a here-document operator and its delimiter ('<<EOF', "<<-'EOF'", '<< "END"')
_MEM_HEREDOC = Lazy(r"<<-?[ \t]{0,4}\\?[\"']?([a-z_][a-z0-9_]{0,31})\\?[\"']?", FLAGS)
#: a here-document's line end: a line break, raw or JSON-escaped, or the end of the JSON string holding it
_MEM_LINE_END = Lazy(r"\r?\n|\\r\\n|\\n|(?<!\\)\"(?=[ \t]*[,}\]])", FLAGS)


def _mem_args(low: str, a: int, b: int) -> list[tuple[int, int]]:
    """The arguments of ``low[a:b]`` as a shell splits them (quotes kept with each)."""
    return [(m.start(), m.end()) for m in _MEM_ARG.finditer(low, a, b)]


def _echo_spans(low: str, args: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The arguments an ``echo`` / ``printf`` / ``yes`` command of arguments ``args``
    prints (its options and a ``%s``-only printf format left out); none for
    any other command.  ``VAR=x``, ``builtin`` and ``command`` may stand
    first, and a subshell's ``(`` / ``{``, and the prompt's ``$`` of a
    shell capture (``$ echo X | mem …``)."""
    i = 0
    while i < len(args) and (low[args[i][0]:args[i][1]] in ("$", "builtin", "command", "(", "{")
                             or "=" in low[args[i][0]:args[i][1]].split("/")[0]):
        i += 1
    if i >= len(args):
        return []
    head = low[args[i][0]:args[i][1]].lstrip("({").rsplit("/", 1)[-1]
    if head not in ("echo", "printf", "yes"):
        return []
    out: list[tuple[int, int]] = []
    sub = low[args[i][0]] in "({"
    for s, e in args[i + 1:]:
        if sub:
            e = s + len(low[s:e].rstrip(")}"))    # '(echo X)': the subshell's end is no argument
        w = low[s:e]
        if _MEM_REDIRECT.match(w):
            break                                  # 'echo X > f': the redirection and its file are no argument
        if (w.startswith("-") and len(w) <= 4) or (head == "printf" and not out and _MEM_FORMAT_ONLY.fullmatch(low, s, e)):
            continue
        out.append((s, e))
    return out


def _written_to(low: str, seg: list[tuple[int, int]], files: list[str]) -> bool:
    """Whether the command of words ``seg`` redirects its output to one of
    ``files`` (``> f``, ``>> f``, ``>f``; quotes ignored)."""
    for i, (s, e) in enumerate(seg):
        w = low[s:e]
        m = _MEM_REDIRECT.match(w)
        if m is None or w.startswith("<"):
            continue
        name = w[m.end():] or (low[seg[i + 1][0]:seg[i + 1][1]] if i + 1 < len(seg) else "")
        if name.strip("'\\\"") in files:
            return True
    return False


def _feeders(low: str, start: int, stop: int, s0: int, e0: int, args: list, words: list,
             files: list[str], stdin: bool) -> list[tuple[int, int]]:
    """What feeds standard input to the command at ``low[start:stop]``
    (module doc): the ``echo`` / ``printf`` arguments of its pipeline
    before it (from the last pipeline start within 1,024 characters), a
    here-string's word, a here-document's lines (those when ``stdin``: its
    standard input carries the secret); and the arguments of an ``echo`` /
    ``printf`` before it (within 1,024 characters) that writes one of
    ``files`` (the files the command reads its secret from: ``echo X > f &&
    mem vault init --passphrase-file f``)."""
    out: list[tuple[int, int]] = []        # from commands that wrote one of files
    pipe: list[tuple[int, int]] = []       # from the commands of the pipeline that ends in this one
    seg: list[tuple[int, int]] = []
    for t in _MEM_PIPE_TOK.finditer(low, max(s0, start - 1024), start):
        if t.group("cut") is not None or t.group() == "|":
            if files and _written_to(low, seg, files):
                out += _echo_spans(low, seg) + _here_string(low, seg)
            elif stdin and t.group() == "|":
                pipe += _echo_spans(low, seg)
            if t.group("cut") is not None:
                pipe = []                  # a new pipeline starts
            seg = []
        else:
            seg.append(t.span())
    out += pipe
    if not stdin:
        return out
    for i, w in enumerate(words):
        if w.startswith("<<<"):
            if len(w) > 3:
                out.append((args[i][0] + 3, args[i][1]))
            elif i + 1 < len(args):
                out.append(args[i + 1])
        elif w.startswith("<<"):
            h = _MEM_HEREDOC.match(low, args[i][0], stop)
            if h is None:
                continue
            out += _heredoc(low, stop, e0, h.group(1))
    return out


def _here_string(low: str, seg: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The word of a here-string among the words ``seg`` (``cat > f <<< X``: X)."""
    for i, (s, e) in enumerate(seg):
        if low.startswith("<<<", s):
            if e - s > 3:
                return [(s + 3, e)]
            return [seg[i + 1]] if i + 1 < len(seg) else []
    return []


#: a variable's expansion ('$pin', '"${PIN}"'): its name
_MEM_VAR = Lazy(r"\\?[\"']?\$\{?([a-z_][a-z0-9_]*)\}?\\?[\"']?", FLAGS)
#: an assignment word ('PIN=x', "pin='a b'" is 'pin=' and a quoted word): its name
_MEM_ASSIGN = Lazy(r"([a-z_][a-z0-9_]*)=", FLAGS)


def _assigned(low: str, start: int, s0: int, names: set[str]) -> list[tuple[int, int]]:
    """The values given on the line before ``start`` (within 1,024
    characters) to the variables ``names`` a secret value of a mem command
    reads (test18b V4: ``PIN=8181; echo $PIN | mem remember K - --sensitivity
    secret``, ``export PIN=8181 && …``): ``NAME=value`` words, alone or after
    ``export`` / ``local`` / ``declare`` / ``readonly``, a command's prefix."""
    out: list[tuple[int, int]] = []
    toks = [t.span() for t in _MEM_PIPE_TOK.finditer(low, max(s0, start - 1024), start)]
    for i, (s, e) in enumerate(toks):
        a = _MEM_ASSIGN.match(low, s, e)
        if a is None or a.group(1) not in names:
            continue
        if a.end() < e:
            out.append((a.end(), e))
        elif i + 1 < len(toks) and toks[i + 1][0] == e and low[e] in "'\"$\\":
            out.append(toks[i + 1])       # "PIN='a b'": the quoted word after the '='
    return out


def _heredoc(low: str, stop: int, e0: int, delim: str) -> list[tuple[int, int]]:
    """The lines of a here-document whose command line ends at ``stop``: up
    to the line ``delim`` (blanks around it ignored), or to the end of the
    text or of the JSON string holding it."""
    nl = _MEM_LINE_END.match(low, stop, e0)
    if nl is None or nl.group() == '"':
        return []
    body = p = nl.end()
    while p < e0:
        br = _MEM_LINE_END.search(low, p, e0)
        end = br.start() if br is not None else e0
        if low[p:end].strip(" \t") == delim:
            end = p     # the body ends with the line break before the delimiter's line
            br = _MEM_LINE_END.search(low, max(body, p - 4), p)
            if br is not None and br.end() == p:
                end = br.start()
            break
        if br is None or br.group() == '"':
            break
        p = br.end()
    return [(body, end)] if end > body else []


def _substitution(low: str, a: int, e0: int) -> list[tuple[int, int]]:
    """``--passphrase-file <(echo X)``: the ``echo`` / ``printf`` arguments
    inside the process substitution starting at ``a``."""
    close = low.find(")", a, min(e0, a + 1024))
    return _echo_spans(low, _mem_args(low, a + 2, close)) if close > 0 else []


def _commands(rule: Rule, low: str, s0: int, e0: int):
    """Each command ``rule`` finds in ``low[s0:e0]``: ``(match, where it
    ends, its arguments' spans, its arguments)``; it ends at a line's end,
    ``;``, ``&``, ``|`` or the end of a JSON string (:data:`_MEM_END`)."""
    for m in rule.lowered.finditer(low, s0, e0):
        end = _MEM_END.search(low, m.end(), e0)
        stop = end.start() if end is not None else e0
        args = _mem_args(low, m.end(), stop)
        yield m, stop, args, [low[a:b] for a, b in args]


def _emit(rule: Rule, low: str, off: int, spans: list[tuple[int, int]], out: list) -> None:
    """``spans`` as ``rule``'s hits, but a redaction marker (a second pass
    takes nothing) and a value that only expands a variable or reads a file."""
    for a, b in spans:
        if "[redacted:" not in low[a:b] and not _MEM_EXPANSION.fullmatch(low, a, b):
            out.append((a + off, b + off, rule.priority, rule.name))


#: a backslash-newline line continuation, raw or JSON-escaped (``\\\n``): bash removes it before it splits
#: words (bash(1) "QUOTING": "A \\<newline> pair is treated as a line continuation"; test18b V7)
_MEM_CONT = Lazy(r"\\\r?\n|\\\\\\(?:r\\\\)?n", FLAGS)


def _joined(scan):
    """``scan`` (a rule's scan function) run over the text with its line
    continuations (:data:`_MEM_CONT`) removed, as the shell reads it; its
    hits mapped back to the offsets of the text as given (a hit's start after
    a removed continuation, its end before one)."""
    import bisect

    def run(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
        s0, e0 = ws - off, we - off
        if low.find("\\\n", s0, e0) < 0 and low.find("\\\\\\", s0, e0) < 0:
            scan(rule, text, ws, we, out, low, off, at)
            return
        parts, at_j, gone, p = [], [], [0], 0       # at_j[k]: where the k-th removal is in the joined text
        for c in _MEM_CONT.finditer(low, s0, e0):
            parts.append(low[p:c.start()])
            at_j.append(c.start() - gone[-1])
            gone.append(gone[-1] + c.end() - c.start())
            p = c.end()
        if not at_j:
            scan(rule, text, ws, we, out, low, off, at)
            return
        parts.append(low[p:])
        hits: list = []
        scan(rule, text, ws, we - gone[-1], hits, "".join(parts), off, at)
        for a, b, prio, name in hits:
            a, b = a - off, b - off
            out.append((a + gone[bisect.bisect_right(at_j, a)] + off, b + gone[bisect.bisect_left(at_j, b)] + off,
                        prio, name))
    run.__doc__ = scan.__doc__
    return run


def _scan_mem_command(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The values on mem's own command lines (module doc): the command ends
    at a line's end, ``;``, ``&``, ``|`` or the end of a JSON string; its
    arguments are read as a shell splits them (quotes kept with the
    argument)."""
    s0, e0 = ws - off, we - off
    for m, stop, args, words in _commands(rule, low, s0, e0):
        sub = m.group("sub")
        pos: list[int] = []            # the positional arguments
        spans: list[tuple[int, int]] = []
        secret = stdin = False
        files: list[str] = []          # the files it reads a secret from ('--passphrase-file f')
        inputs: list[str] = []         # its standard input's file ('< f'): a secret when stdin is one
        subs: list[int] = []           # its standard input's process substitution ('< <(echo X)')
        take = None
        for i, w in enumerate(words):
            if take is not None:
                v = w.strip("'\"\\")
                if take == "--sensitivity" and v == "secret":
                    secret = True
                elif take == "--match":
                    spans.append(args[i])
                elif take == "--passphrase-file":
                    stdin = stdin or v == "-"
                    if w.startswith("<("):
                        spans += _substitution(low, args[i][0], e0)
                    elif v != "-":
                        files.append(v)
                elif take == "<":
                    if w.startswith("<("):
                        subs.append(args[i][0])   # '< <(echo X)': standard input from the substitution
                    else:
                        inputs.append(v)
                take = None
            elif w.startswith("--") and w != "--":
                name, eq, val = w.partition("=")
                v = val.strip("'\"\\")
                if name == "--sensitivity" and v == "secret":
                    secret = True
                elif name == "--match" and v:
                    spans.append((args[i][0] + len(name) + 1, args[i][1]))
                elif name == "--passphrase-file" and v:
                    stdin = stdin or v == "-"
                    if v != "-":
                        files.append(v)
                if (not eq or not val) and name in _MEM_VALUE_OPTS:
                    take = name         # its value is the next argument ('--match X', "--match='X Y'")
            elif w.startswith("<"):
                if w == "<":
                    take = "<"          # standard input from the next word's file
                elif not w.startswith(("<<", "<(")):
                    inputs.append(w[1:].strip("'\"\\"))
                continue                # a here-string, a here-document: read by _feeders
            elif not w.startswith("-") or w in ("-", "--") or (sub == "remember" and len(pos) == 1):
                if w != "--":
                    pos.append(i)       # remember takes '-…' as its VALUE ('-----BEGIN …', cmds/remember.py)
            elif w in ("-o",):
                take = w
        if sub == "scan" and pos:
            spans.append(args[pos[0]])
        elif sub == "remember" and len(pos) >= 2 and (secret or credential_name(words[pos[0]].strip("'\"\\"))):
            if words[pos[1]] == "-":
                stdin = True
            else:
                spans.append(args[pos[1]])
        elif sub == "sealed" and len(pos) >= 3 and words[pos[0]] == "import" and words[pos[2]] == "-":
            stdin = True
        if stdin or files:
            spans += _feeders(low, m.start(), stop, s0, e0, args, words, files + inputs if stdin else files, stdin)
        if stdin:
            for a in subs:
                spans += _substitution(low, a, e0)
        if not stdin and any(low[a:b].strip("'\"\\") == "{}" for a, b in spans):
            # 'echo X | xargs -I{} mem forget --match {}': the value is what feeds xargs (test18b V8)
            spans += _feeders(low, m.start(), stop, s0, e0, args, words, [], True)
        names = {v.group(1) for v in (_MEM_VAR.fullmatch(low, a, b) for a, b in spans) if v is not None}
        if names:
            spans += _assigned(low, m.start(), s0, names)
        _emit(rule, low, off, spans, out)


#: age(1) and the options of it that take a value (https://github.com/FiloSottile/age, age(1): -r, -R, -i, -o)
_AGE = r"age(?<![a-z0-9_\-.]age)(?=[ \t]{1,4}-)"
_AGE_VALUE_OPTS = frozenset(("-r", "-R", "-i", "-o", "--recipient", "--recipients-file", "--identity", "--output"))


def _scan_age_input(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """What ``age`` encrypts from standard input (test18 U1 addendum: ``echo
    X | age -r age1… -o f.age``, the way a value is sealed for ``mem sealed
    import``): with a recipient (``-r``, ``-R``), ``-e`` or ``-p`` and no
    input file, the ``echo`` / ``printf`` before it in the pipeline, a
    here-string, a here-document (:func:`_feeders`); with an input file,
    an ``echo`` / ``printf`` before it that wrote that file.  Decrypting
    (``-d``) reads a ciphertext: nothing."""
    s0, e0 = ws - off, we - off
    for m, stop, args, words in _commands(rule, low, s0, e0):
        encrypt, inputs, take = False, [], None
        for w in words:
            if take is not None:
                if take == "<":
                    inputs.append(w.strip("'\"\\"))
                take = None
            elif w.startswith("<<"):
                take = "<<<" if w == "<<<" else None     # a here-string's word, a here-document: read by _feeders
            elif _MEM_REDIRECT.match(w):
                r = _MEM_REDIRECT.match(w)
                if w.startswith("<") and len(w) > 1:
                    inputs.append(w[1:].strip("'\"\\"))
                elif len(w) == r.end():
                    take = "<" if w == "<" else ">"      # the file of '< f' is its input, of '> f' its output
            elif w in ("-d", "--decrypt"):
                encrypt = False
                break
            elif w.startswith("-") and w != "-":
                name = w.split("=", 1)[0]
                if name in ("-r", "-R", "-e", "-p", "--recipient", "--recipients-file", "--encrypt", "--passphrase") \
                        or (len(w) > 2 and w[1] != "-" and any(c in w[1:] for c in "rRep")):
                    encrypt = True
                if name in _AGE_VALUE_OPTS and "=" not in w or (len(w) > 2 and w[1] != "-" and w[-1] in "rRio"):
                    take = name
            elif not w.startswith("<("):
                inputs.append(w.strip("'\"\\"))
        if not encrypt:
            continue
        stdin = not [f for f in inputs if f != "-"]
        _emit(rule, low, off, _feeders(low, m.start(), stop, s0, e0, args, words, inputs, stdin), out)


#: the rule, one entry per launcher (each pattern starts with its own literal: ``re`` searches for it)
MEM_COMMAND_RULES: list[Rule] = [
    make_rule("mem-command",
              "mem's own command lines (docs/cli.md): the VALUE of 'mem remember KEY VALUE --sensitivity secret' "
              "or of a KEY named for a credential, the TEXT of 'mem forget --match TEXT' and 'mem scan TEXT' "
              "(test17 T10), what feeds 'remember KEY -', 'sealed import KEY -' and '--passphrase-file -' "
              "(echo/printf, here-string, here-document); mem run as a path, a variable or 'python -m cmds' (red18)",
              launcher + _MEM_HOME + _MEM_SUBS, ci=True, priority=44, anchors=anchors, scan=_joined(_scan_mem_command))
    for launcher, anchors in _MEM_LAUNCHERS
] + [
    make_rule("age-input",
              "what age(1) encrypts from standard input, given on the same command line: 'echo|printf X | age -r "
              "RECIPIENT', 'age -p <<< X', 'echo X > f && age -r R f' (the value a person seals for 'mem sealed import'; "
              "test18 U1) https://github.com/FiloSottile/age",
              _AGE, ci=True, priority=44, anchors=("age -",), scan=_joined(_scan_age_input)),
]
