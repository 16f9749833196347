# mem shell integration for zsh.  Put in ~/.zshrc (mem setup does):
#   (( $+commands[mem] )) && eval "$(mem shell-init zsh)"
# Printed by `mem shell-init zsh` (hooks/shell/mem.zsh).  It only calls mem.
#
# * `claude` and `codex` start the agent with capture on: mem's hooks run inside
#   it, and when it exits a catch-up (claude) or an import of today's rollouts
#   (codex) runs in the background.  When mem is missing or broken you get a
#   warning and the agent starts anyway.
# * MEM_SHELL_CAPTURE=1 (opt-in) records every command you type here: command
#   line, working directory, exit status and duration, as turns of one session
#   per shell.  A command that starts with a space is never recorded.
#   MEM_NO_CAPTURE=1 turns all capture off.

__mem_ok() {
  if ! (( $+commands[mem] )); then
    print -u2 "mem: not found on PATH; starting $1 without memory capture"
    return 1
  fi
  if ! mem --version >/dev/null 2>&1; then
    print -u2 "mem: not working (see: mem --version); starting $1 without memory capture"
    return 1
  fi
}

__mem_agent() {
  local agent=$1 ok=0 rc d
  shift
  __mem_ok $agent && ok=1
  if [[ $agent == claude && $ok == 1 && -n ${MEM_PROXY:-} ]]; then
    local url=${MEM_PROXY_URL:-http://127.0.0.1:7077}
    if mem proxy health --url $url --timeout 1 >/dev/null 2>&1; then
      ANTHROPIC_BASE_URL=$url MEM_PROXY_ACTIVE=1 command claude "$@"
      return $?
    fi
    print -u2 "mem: no proxy answers at $url (start it: mem proxy); starting claude without it"
  fi
  command $agent "$@"
  rc=$?
  if [[ $ok == 1 && -z ${MEM_NO_CAPTURE:-} ]]; then
    case $agent in
      claude) { sleep 2; mem hook catch-up } >/dev/null 2>&1 &! ;;
      codex)
        d="${CODEX_HOME:-$HOME/.codex}/sessions/$(date +%Y/%m/%d)"
        [[ -d $d ]] && { mem import codex $d >/dev/null 2>&1 &! } ;;
    esac
  fi
  return $rc
}

claude() { __mem_agent claude "$@" }
codex() { __mem_agent codex "$@" }

if [[ ${MEM_SHELL_CAPTURE:-} == 1 && -o interactive ]]; then
  zmodload zsh/datetime 2>/dev/null
  typeset -g __mem_sid="shell-${HOST%%.*}-$(date +%Y%m%dT%H%M%S)-$$"
  typeset -g __mem_cmd='' __mem_start='' __mem_cwd=''
  typeset -gi __mem_seq=0   # the number of the last command handed to mem: its records are stored in this order
  __mem_ms() { printf "%.0f" $(( ${EPOCHREALTIME:-$EPOCHSECONDS} * 1000 )) }
  __mem_preexec() {
    __mem_cmd=$1
    __mem_cwd=$PWD
    __mem_start=$(__mem_ms)
  }
  __mem_precmd() {
    local st=$?
    [[ -n $__mem_cmd ]] || return $st
    local cmd=$__mem_cmd start=$__mem_start now=$(__mem_ms)
    __mem_cmd=''
    if [[ $cmd != ' '* && -z ${MEM_NO_CAPTURE:-} ]]; then
      __mem_seq=$(( __mem_seq + 1 ))
      # the line goes on stdin (print is a builtin): an argument is readable by every user in /proc
      print -rn -- $cmd | mem hook shell --session $__mem_sid --cwd $__mem_cwd --status $st --start $start \
        --duration $(( now - start )) --seq $__mem_seq >/dev/null 2>&1 &!
    fi
    return $st
  }
  autoload -Uz add-zsh-hook
  add-zsh-hook preexec __mem_preexec
  precmd_functions=(__mem_precmd $precmd_functions)
fi
