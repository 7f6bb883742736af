"""Shell completion scripts for ``zpm`` (``zpm completion bash|zsh``), derived
from the command-line parser, so they always offer the commands and flags
the installed ``zpm`` takes.

The bash script completes the commands, each command's flags, directories
after ``--project``, the formats after ``--format`` and the shells after
``completion``.  zsh runs the same function through its ``bashcompinit``.
Install with ``eval "$(zpm completion bash)"`` in ``~/.bashrc`` (or
``zsh`` in ``~/.zshrc``).
"""

from __future__ import annotations

import argparse
import shlex

_FUNCTION = """\
_zpm() {{
    local cur prev word command="" i
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${{COMP_WORDS[i]}}"
        case " {commands} " in
            *" $word "*) command="$word"; break ;;
        esac
    done
    case "$prev" in
        --project) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
        --engine) return ;;
    esac
    case "$command" in
{cases}
    esac
}}
"""


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``parser`` for ``shell`` (``bash`` or ``zsh``)."""
    commands = _commands(parser)
    top = _flags(parser)
    cases = [f'        "") COMPREPLY=($(compgen -W {_words([*commands, *top])} -- "$cur")) ;;']
    for name, sub in commands.items():
        words = ["bash", "zsh"] if name == "completion" else []
        words += _flags(sub)
        cases.append(f'        {name}) COMPREPLY=($(compgen -W {_words(words)} -- "$cur")) ;;')
    function = _FUNCTION.format(commands=" ".join(commands), cases="\n".join(cases))
    if shell == "zsh":
        header = '# zsh completion for zpm: eval "$(zpm completion zsh)" in ~/.zshrc\n'
        header += "autoload -U +X bashcompinit && bashcompinit\n"
    else:
        header = '# bash completion for zpm: eval "$(zpm completion bash)" in ~/.bashrc\n'
    return f"{header}{function}complete -o default -F _zpm zpm\n"


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _flags(parser: argparse.ArgumentParser) -> list[str]:
    """The long flags ``parser`` shows (hidden aliases left out)."""
    return [
        flag
        for action in parser._actions
        if action.help != argparse.SUPPRESS
        for flag in action.option_strings
        if flag.startswith("--")
    ]


def _words(words: list[str]) -> str:
    return shlex.quote(" ".join(words))
