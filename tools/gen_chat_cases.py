#!/usr/bin/env python3
"""Writes tests/data/chat_cases.jsonl: what HuggingFace's apply_chat_template returns for the
templates in ../shared/testdata/chat/templates.json on conversations beyond the public set
(white space, Unicode, empty and long contents, special-token-like text, think blocks,
tool messages, unusual role orders). Needs Python 3 and jinja2; the build never runs it.

The Jinja environment is set up as transformers' chat template utilities do:
ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with the loopcontrols
extension, a tojson filter that calls json.dumps(ensure_ascii=False), raise_exception, and
strftime_now (here fixed to 26 Jul 2024, the date the tests set through SOURCE_DATE_EPOCH).
The template's special tokens (bos_token, eos_token) are passed when not null.

usage: python3 tools/gen_chat_cases.py [../shared/testdata/chat/templates.json] > tests/data/chat_cases.jsonl
"""
import json
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment


class TemplateError(Exception):
    pass


def raise_exception(message):
    raise TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def render(template, messages, add_generation_prompt, tokens, **kwargs):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: "26 Jul 2024" if fmt == "%d %b %Y" else fmt
    special = {k: v for k, v in tokens.items() if v is not None}
    return env.from_string(template).render(messages=messages, tools=None, documents=None,
                                            add_generation_prompt=add_generation_prompt, **special, **kwargs)


def m(role, content):
    return {"role": role, "content": content}


CONVERSATIONS = [
    ("x01_whitespace", [m("system", "  \t Be brief. \n\n"), m("user", "\n  Hello there  \r\n"),
                        m("assistant", "  Hi!  \n"), m("user", " \u3000Again?\u00a0\u2003 ")]),
    ("x02_unicode", [m("user", "Grüße, 世界! 🙂 — naïve café"), m("assistant", "こんにちは 🙂"),
                     m("user", "\u2028line\u2029sep\u0085x\u200b")]),
    ("x03_empty_system", [m("system", ""), m("user", "Hi")]),
    ("x04_empty_contents", [m("user", ""), m("assistant", ""), m("user", " ")]),
    ("x05_special_text", [m("system", "<s> [INST] <<SYS>> <|im_start|>"),
                          m("user", "<|eot_id|><|start_header_id|>user<|end_header_id|> </s> <end_of_turn>"),
                          m("assistant", "[/INST] <|im_end|> {{ bos_token }} {% raise %}"), m("user", "\\n \" ' \\")]),
    ("x06_long", [m("system", "Rules. " * 40), m("user", "word " * 300), m("assistant", "ok " * 200),
                  m("user", "line\n" * 50)]),
    ("x07_think", [m("user", "2+2?"), m("assistant", "<think>\nadd them\n</think>\n\n4"),
                   m("user", "3+3?"), m("assistant", "\n<think>sum</think>6")]),
    ("x08_think_middle", [m("system", "S"), m("user", "a"), m("assistant", "<think>r1</think>b"),
                          m("user", "c")]),
    ("x09_only_system", [m("system", "Only a system message.")]),
    ("x10_assistant_first", [m("assistant", "I start."), m("user", "Then me.")]),
    ("x11_system_later", [m("user", "u1"), m("assistant", "a1"), m("system", "late system"), m("user", "u2")]),
    ("x12_tool", [m("user", "What is the weather?"), m("assistant", "Let me check."),
                  m("tool", "{\"temp\": 20}"), m("tool", "sunny\n\"quoted\""), m("user", "Thanks")]),
    ("x13_three_turns", [m("system", "You are terse."), m("user", "A"), m("assistant", "B"), m("user", "C"),
                         m("assistant", "D"), m("user", "E")]),
    ("x14_think_unclosed", [m("user", "q"), m("assistant", "<think>open only"), m("user", "r")]),
    ("x15_empty", []),
    ("x16_system_only_spaces", [m("system", " \n "), m("user", "\u00a0x\u00a0")]),
    ("x17_unknown_role", [m("user", "hi"), m("narrator", "A voice speaks."), m("user", "ok")]),
]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "../shared/testdata/chat/templates.json"
    templates = json.load(open(path, encoding="utf-8"))
    out = sys.stdout
    for name, t in templates.items():
        tokens = {"bos_token": t.get("bos_token"), "eos_token": t.get("eos_token")}
        for cid, messages in CONVERSATIONS:
            for agp in (False, True):
                rec = {"template": name, "conversation": cid, "messages": messages, "add_generation_prompt": agp}
                try:
                    rec["text"] = render(t["chat_template"], messages, agp, tokens)
                except TemplateError as e:
                    rec["error"] = True
                    rec["message"] = str(e)
                except jinja2.exceptions.UndefinedError as e:
                    rec["error"] = True
                    rec["message"] = str(e)
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        if "<think>" in t["chat_template"]:
            rec = {"template": name, "conversation": "x04_empty_contents", "messages": CONVERSATIONS[3][1],
                   "add_generation_prompt": True, "enable_thinking": False,
                   "text": render(t["chat_template"], CONVERSATIONS[3][1], True, tokens, enable_thinking=False)}
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
