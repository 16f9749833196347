"""cfg21 (tester W2): a credential in a config file's own shape, stored in the
clear on batch: a name/value pair whose name is a credential's (Kubernetes
container env, ECS task definition environment, .NET ``<add key value>``,
``Key:``/``Value:``), PHP ``define('DB_PASSWORD', 'X')``, a Maven
``<password>X</password>``, a YAML block scalar ``password: |``,
wpa_supplicant ``psk="X"`` and redis ``requirepass X``.  Through ``redact``,
``mem remember``/``mem get`` and real ``mem import claude-code`` and ``mem
import codex`` processes.  Every value is fake (random)."""

from __future__ import annotations

import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted, codex_rollout
from tests.hooks._util import CWD, REPO, bash_results, turns

rnd = random.Random(2102)


def r(n: int) -> str:
    return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(n))


S = {k: k[:3].capitalize() + "9" + r(8) for k in (
    "k8s", "k8s-quoted", "k8s-escaped", "ecs", "ecs-escaped", "list-token", "dotnet", "nuget", "keyvalue", "wp",
    "wp-spaced", "maven", "xml-apikey", "yaml-literal", "yaml-folded", "psk", "redis", "redis-config", "masterauth")}
PSK_HEX = "".join(rnd.choice("0123456789abcdef") for _ in range(64))

#: case -> (text, the secret it holds, the rule expected)
CASES = {
    "k8s": (f"env:\n  - name: DB_PASSWORD\n    value: {S['k8s']}\n", S["k8s"], "named-setting"),
    "k8s-quoted": (f'env:\n- name: "API_KEY"\n  value: "{S["k8s-quoted"]}"', S["k8s-quoted"], "named-setting"),
    "k8s-escaped": (f'{{"output": "env:\\n  - name: DB_PASSWORD\\n    value: {S["k8s-escaped"]}\\n"}}',
                    S["k8s-escaped"], "named-setting"),
    "ecs": (f'{{"environment": [{{"name":"DB_PASSWORD","value":"{S["ecs"]}"}}]}}', S["ecs"], "named-setting"),
    "ecs-escaped": (f'"{{\\"name\\": \\"DB_PASSWORD\\", \\"value\\": \\"{S["ecs-escaped"]}\\"}}"', S["ecs-escaped"],
                    "named-setting"),
    "list-token": (f"- name: API_TOKEN\n  value: {S['list-token']}", S["list-token"], "named-setting"),
    "dotnet": (f'<appSettings>\n  <add key="ApiKey" value="{S["dotnet"]}" />\n</appSettings>', S["dotnet"],
               "named-setting"),
    "nuget": (f'<add key="ClearTextPassword" value="{S["nuget"]}"/>', S["nuget"], "named-setting"),
    "keyvalue": (f"Tags:\n  - Key: DB_PASSWORD\n    Value: {S['keyvalue']}", S["keyvalue"], "named-setting"),
    "wp": (f"define('DB_PASSWORD', '{S['wp']}');", S["wp"], "named-setting"),
    "wp-spaced": (f'define( "AUTH_KEY", "{S["wp-spaced"]}" );', S["wp-spaced"], "named-setting"),
    "maven": (f"<servers><server><id>r</id><username>bob</username><password>{S['maven']}</password></server>",
              S["maven"], "named-setting"),
    "xml-apikey": (f"<apiKey>{S['xml-apikey']}</apiKey>", S["xml-apikey"], "named-setting"),
    "yaml-literal": (f"db:\n  password: |\n    {S['yaml-literal']}\n", S["yaml-literal"], "named-setting"),
    "yaml-folded": (f"AUTH_TOKEN: >-\n  {S['yaml-folded']}", S["yaml-folded"], "named-setting"),
    "psk": (f'network={{\n    ssid="home"\n    psk="{S["psk"]}"\n}}', S["psk"], "config-password"),
    "psk-hex": (f"network={{\n    psk={PSK_HEX}\n}}", PSK_HEX, "config-password"),
    "redis": (f"bind 127.0.0.1\nrequirepass {S['redis']}\n", S["redis"], "config-password"),
    "redis-config": (f'redis-cli CONFIG SET requirepass "{S["redis-config"]}"', S["redis-config"], "config-password"),
    "masterauth": (f"masterauth {S['masterauth']}", S["masterauth"], "config-password"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted(case):
    text, secret, rule = CASES[case]
    assert f"[REDACTED:{rule}]" in assert_redacted(case, text, [secret], rule=rule, escaped=False)


@pytest.mark.parametrize("text", [
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password",
    "- name: LOG_LEVEL\n  value: debug",
    '{"name":"DB_PASSWORD","value":"$DB_PASSWORD"}',
    '{"name": "password", "value": "changeme"}',
    '<add key="Environment" value="Production"/>',
    "<key>CFBundleName</key><string>App</string>",
    "<password>${env.MAVEN_PASSWORD}</password>",
    "define('DB_PASSWORD', getenv('DB_PASSWORD'));",
    "define('WP_DEBUG', 'true');",
    "description: |\n  text that goes on",
    "password: |\n  ${DB_PASSWORD}",
    "# requirepass foobared",
    "set the requirepass directive in redis.conf",
    "requirepass $REDIS_PASSWORD",
    'psk="your passphrase"',
    "the psk is configured",
])
def test_look_alikes_are_kept(text):
    assert redact(text).text == text


def _mem(store: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", "--home", str(store), *args], capture_output=True,
                          text=True, cwd=REPO, timeout=120)


def test_remember_and_both_imports_store_none_of_them(tmp_path):
    """Real mem processes: each text remembered (``mem get`` shows no secret),
    and each as a tool result of an imported Claude Code transcript and of an
    imported Codex rollout (no stored turn holds one; ``mem search`` finds none)."""
    store = tmp_path / "store"
    chosen = ("k8s", "ecs", "dotnet", "wp", "maven", "yaml-literal", "psk", "redis")
    for case in chosen:
        text, secret, _rule = CASES[case]
        p = _mem(store, "remember", f"project/cfg21/{case}", text)
        assert p.returncode == 0, p.stdout + p.stderr
        got = _mem(store, "get", f"project/cfg21/{case}").stdout
        assert secret not in got and "[REDACTED:" in got, got
    sid = "21021021-1111-2222-3333-444444444444"
    t = tmp_path / f"{sid}.jsonl"
    t.write_bytes(bash_results(sid, [(c, CASES[c][0]) for c in chosen]))
    p = _mem(store, "import", "claude-code", str(t))
    assert p.returncode == 0, p.stdout + p.stderr
    r_ = codex_rollout(tmp_path / "rollout-2026-03-02T10-00-00-T-cfg21.jsonl", [CASES[c][0] for c in chosen],
                       "T-cfg21", CWD)
    p = _mem(store, "import", "codex", str(r_))
    assert p.returncode == 0, p.stdout + p.stderr
    stored = [t[3] for t in turns(store)]
    joined = "\n".join(stored)
    assert {t[0] for t in turns(store)} >= {sid}, "claude-code session not imported"
    assert joined.count("[REDACTED:") >= 2 * len(chosen), joined
    for case in chosen:
        secret = CASES[case][1]
        assert secret not in joined, f"{case}: {secret} captured in clear"
        s = _mem(store, "search", secret, "--json")
        assert secret not in s.stdout, f"{case}: mem search found {secret}"
