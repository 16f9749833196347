# mem shell integration for bash.  Put in ~/.bashrc (mem setup does):
#   command -v mem >/dev/null 2>&1 && eval "$(mem shell-init bash)"
# Printed by `mem shell-init bash` (hooks/shell/mem.bash).  It only calls mem.
#
# * `claude` and `codex` start the agent with capture on: mem's hooks run inside
#   it, and when it exits a catch-up (claude) or an import of today's rollouts
#   (codex) runs in the background.  When mem is missing or broken you get a
#   warning and the agent starts anyway.
# * With MEM_PROXY=1, `claude` goes through `mem proxy` (memory inside every
#   request; the hooks then stand aside) when one answers within 1 s at
#   MEM_PROXY_URL (default http://127.0.0.1:7077); otherwise it warns and starts
#   Claude Code directly, with the hooks.
# * MEM_SHELL_CAPTURE=1 (opt-in) records every command you type here: command
#   line, working directory, exit status and duration, as turns of one session
#   per shell.  A command that starts with a space is never recorded (nor a
#   repeat that HISTCONTROL keeps out of history).  MEM_NO_CAPTURE=1 turns
#   all capture off.

__mem_ok() {
  if ! command -v mem >/dev/null 2>&1; then
    printf 'mem: not found on PATH; starting %s without memory capture\n' "$1" >&2
    return 1
  fi
  if ! mem --version >/dev/null 2>&1; then
    printf 'mem: not working (see: mem --version); starting %s without memory capture\n' "$1" >&2
    return 1
  fi
}

__mem_agent() {
  local agent=$1 ok=0 rc d
  shift
  __mem_ok "$agent" && ok=1
  if [ "$agent" = claude ] && [ "$ok" = 1 ] && [ -n "${MEM_PROXY:-}" ]; then
    local url=${MEM_PROXY_URL:-http://127.0.0.1:7077}
    if mem proxy health --url "$url" --timeout 1 >/dev/null 2>&1; then
      ANTHROPIC_BASE_URL=$url MEM_PROXY_ACTIVE=1 command claude "$@"
      return $?
    fi
    printf 'mem: no proxy answers at %s (start it: mem proxy); starting claude without it\n' "$url" >&2
  fi
  command "$agent" "$@"
  rc=$?
  if [ "$ok" = 1 ] && [ -z "${MEM_NO_CAPTURE:-}" ]; then
    case $agent in
      claude) ( { sleep 2; mem hook catch-up; } >/dev/null 2>&1 & ) ;;
      codex)
        d="${CODEX_HOME:-$HOME/.codex}/sessions/$(date +%Y/%m/%d)"
        [ -d "$d" ] && ( mem import codex "$d" >/dev/null 2>&1 & ) ;;
    esac
  fi
  return $rc
}

claude() { __mem_agent claude "$@"; }
codex() { __mem_agent codex "$@"; }

if [ "${MEM_SHELL_CAPTURE:-}" = 1 ] && [[ $- == *i* ]] && [ -z "$(trap -p DEBUG)" ]; then
  __mem_sid="shell-${HOSTNAME%%.*}-$(date +%Y%m%dT%H%M%S)-$$"
  __mem_armed=
  __mem_start=
  __mem_seq=0   # the number of the last command handed to mem: its records are stored in this order
  __mem_cwd=
  __mem_hist=$(HISTTIMEFORMAT= builtin history 1 2>/dev/null)
  __mem_hist=${__mem_hist%%[!0-9 ]*}
  __mem_hist=${__mem_hist// /}

  __mem_ms() {
    local t=${EPOCHREALTIME/[.,]/}
    if [ -n "$t" ]; then printf '%s' "${t:0:${#t}-3}"; else printf '%s000' "$(date +%s)"; fi
  }
  __mem_debug() {
    [ -n "$__mem_armed" ] || return 0
    __mem_armed=
    __mem_cwd=$PWD
    __mem_start=$(__mem_ms)
  }
  __mem_precmd() {
    local st=$? line now
    if [ -n "$__mem_start" ]; then
      now=$(__mem_ms)
      line=$(HISTTIMEFORMAT= builtin history 1 2>/dev/null)
      if [[ $line =~ ^\ *([0-9]+)\*?\ \ (.*)$ ]] && [ "${BASH_REMATCH[1]}" != "$__mem_hist" ]; then
        __mem_hist=${BASH_REMATCH[1]}
        line=${BASH_REMATCH[2]}
        if [ -n "$line" ] && [ "${line:0:1}" != " " ] && [ -z "${MEM_NO_CAPTURE:-}" ]; then
          __mem_seq=$((__mem_seq + 1))
          # the line goes on stdin (printf is a builtin): an argument is readable by every user in /proc
          ( printf '%s' "$line" | mem hook shell --session "$__mem_sid" --cwd "$__mem_cwd" --status "$st" \
              --start "$__mem_start" --duration "$((now - __mem_start))" --seq "$__mem_seq" >/dev/null 2>&1 & )
        fi
      fi
    fi
    __mem_start=
    __mem_armed=1
    return $st
  }
  trap '__mem_debug' DEBUG
  PROMPT_COMMAND="__mem_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
fi
