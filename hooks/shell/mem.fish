# mem shell integration for fish.  Put in ~/.config/fish/config.fish (mem setup does):
#   command -q mem; and mem shell-init fish | source
# Printed by `mem shell-init fish` (hooks/shell/mem.fish).  It only calls mem.
#
# * `claude` and `codex` start the agent with capture on: mem's hooks run inside
#   it, and when it exits a catch-up (claude) or an import of today's rollouts
#   (codex) runs in the background.  When mem is missing or broken you get a
#   warning and the agent starts anyway.
# * MEM_SHELL_CAPTURE=1 (opt-in) records every command you type here: command
#   line, working directory, exit status and duration, as turns of one session
#   per shell.  A command that starts with a space is never recorded.
#   MEM_NO_CAPTURE=1 turns all capture off.

function __mem_ok --argument-names agent
    if not command -q mem
        printf 'mem: not found on PATH; starting %s without memory capture\n' $agent >&2
        return 1
    end
    if not command mem --version >/dev/null 2>&1
        printf 'mem: not working (see: mem --version); starting %s without memory capture\n' $agent >&2
        return 1
    end
end

function __mem_agent
    set -l agent $argv[1]
    set -e argv[1]
    set -l ok 0
    __mem_ok $agent; and set ok 1
    if test $agent = claude; and test $ok = 1; and test -n "$MEM_PROXY"
        set -l url $MEM_PROXY_URL
        test -n "$url"; or set url http://127.0.0.1:7077
        if mem proxy health --url $url --timeout 1 >/dev/null 2>&1
            env ANTHROPIC_BASE_URL=$url MEM_PROXY_ACTIVE=1 claude $argv
            return $status
        end
        echo "mem: no proxy answers at $url (start it: mem proxy); starting claude without it" >&2
    end
    command $agent $argv
    set -l rc $status
    if test $ok = 1; and test -z "$MEM_NO_CAPTURE"
        switch $agent
            case claude
                fish -c 'sleep 2; mem hook catch-up' >/dev/null 2>&1 &
                disown 2>/dev/null
            case codex
                set -l home $CODEX_HOME
                test -n "$home"; or set home $HOME/.codex
                set -l d $home/sessions/(date +%Y/%m/%d)
                if test -d $d
                    command mem import codex $d >/dev/null 2>&1 &
                    disown 2>/dev/null
                end
        end
    end
    return $rc
end

function claude --wraps claude
    __mem_agent claude $argv
end

function codex --wraps codex
    __mem_agent codex $argv
end

if test "$MEM_SHELL_CAPTURE" = 1; and status is-interactive
    set -g __mem_sid shell-(string split -m1 . (hostname))[1]-(date +%Y%m%dT%H%M%S)-$fish_pid
    set -g __mem_cwd $PWD
    set -g __mem_seq 0   # the number of the last command handed to mem: its records are stored in this order
    function __mem_preexec --on-event fish_preexec
        set -g __mem_cwd $PWD
    end
    function __mem_postexec --on-event fish_postexec
        set -l st $status
        set -l cmd $argv[1]
        test -n "$cmd"; or return
        string match -q -- ' *' $cmd; and return
        test -z "$MEM_NO_CAPTURE"; or return
        set -l dur $CMD_DURATION
        test -n "$dur"; or set dur 0
        set -l now (math (date +%s) \* 1000)
        set -g __mem_seq (math $__mem_seq + 1)
        # the line goes on stdin (printf is a builtin): an argument is readable by every user in /proc
        printf '%s' $cmd | nohup mem hook shell --session $__mem_sid --cwd $__mem_cwd --status $st --start (math $now - $dur) --duration $dur --seq $__mem_seq >/dev/null 2>&1 &
        disown 2>/dev/null
    end
end
