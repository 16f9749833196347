"""test43 T15: a value the person sealed as secret kept its password-shaped
words out of its rules: "hunter22" (letters and two digits) of "admin
password hunter22 for the router", "Heron-88" of "… the safe is Heron-88"
and the card's number alone of "bank pin 4471 card 4111111111111111" came
back in the clear through an agent's write and a later prompt.  Now, in a
value sealed as secret, a word of letters and one or two digits whose
letters are no ordinary technical name, a card's number (Luhn), and a word
holding a digit or a mark said after a secret's word ("password", "safe
is", "card") are forms of their own (``sealsources.secret_parts``
``said_secret``); "server01", "python27", "windows10" of such a value stay
writable and captured (test43 T1: a rule too wide loses ordinary words).
Real ``mem`` processes: a seal, an agent's ``remember``, the prompt hook;
the store's bytes after ``gc --prune=now``."""

from __future__ import annotations

from objstore import scan_store
from objstore.memory.sealsources import quoted_forms
from tests.hooks._util import wait_store_processes_gone
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

AGENT = {"MEM_AGENT": "claude"}
VALUES = ["admin password hunter22 for the router", "the alarm is 4471-2290 and the safe is Heron-88",
          "bank pin 4471 card 4111111111111111", "ssh to server01 with python27 on windows10, password Kestrel-5517"]
SECRETS = [b"hunter22", b"Heron-88", b"4111111111111111", b"Kestrel-5517", b"4471-2290"]


def test_a_sealed_values_password_code_and_card_number_never_come_back(tmp_path):
    s, env = sealed_session(tmp_path, VALUES, "v44")
    _mem(env, "remember", "project/net/wifi", "guest net: ops / Dragon-77")   # a plain key sealed later
    _mem(env, "seal", "project/net/wifi")
    agent = {**env, **AGENT}
    for body in ("log in with hunter22 as admin", "router: admin / hunter22", "the safe is Heron-88",
                 "use 4111111111111111", "the guest net wants Dragon-77", "HUNTER 22 works"):
        r = _mem(agent, "remember", "project/t/s", body, ok=(6,))
        assert "sealed" in r.stderr, (body, r.stderr)
    for i, body in enumerate(("ssh to server01 first", "the venv uses python27", "the box runs windows10")):
        _mem(agent, "remember", f"project/t/ok{i}", body)   # ordinary technical words of a sealed value
    s.prompt("the router takes hunter22 and the safe Heron-88")
    s.prompt("pay with 4111111111111111 please; guest net Dragon-77")
    s.prompt("ssh to server01 with python27 on windows10 again")
    s.stop("Noted: hunter22, Heron-88.")
    wait_store_processes_gone(s.store)
    _mem(env, "gc", "--prune=now")
    found = scan_store(s.store, SECRETS + [b"Dragon-77"])
    assert found == [], found
    shown = _mem(env, "show", s.sid[:8]).stdout
    assert "the router takes [REDACTED:sealed-value] and the safe [REDACTED:sealed-value]" in shown, shown
    assert "ssh to server01 with python27 on windows10 again" in shown, shown
    assert _mem(env, "get", "project/t/ok1").stdout.strip() == "the venv uses python27"


def test_which_words_of_a_sealed_value_are_its_parts():
    """Both sides of the rule: the value sealed as secret (said_secret) against the same value forgotten."""
    parts = {v: quoted_forms(v, said_secret=True) for v in VALUES}
    assert "hunter22" in parts[VALUES[0]] and "Heron-88" in parts[VALUES[1]], parts
    assert "4111111111111111" in parts[VALUES[2]], parts
    assert [p for p in parts[VALUES[3]] if " " not in p] == ["Kestrel-5517"], parts
    assert "server01" in quoted_forms("password server01 for the lab box", said_secret=True)   # said as the secret
    assert "12345678" in quoted_forms("account 12345678 at the bank", said_secret=True)
    # not a part: a version, a host, a platform, a number that is no card's, a word of letters, a short word
    for v in ("build on ubuntu22 with python27 and server01 for windows10", "ticket 1733580000000 opened",
              "the password is stored in the vault", "deploy oauth2-proxy to the k8s-cluster using utf8mb4_unicode_ci",
              "room 4 floor 12345678", "the safe is abc12"):
        assert [p for p in quoted_forms(v, said_secret=True) if " " not in p] == [], (v, quoted_forms(v, True))
    # a value forgotten, not sealed, keeps val43's rule: its password-shaped word is no part alone
    assert [p for p in quoted_forms(VALUES[0]) if " " not in p] == [], quoted_forms(VALUES[0])


def test_names_with_a_number_in_a_sealed_description_stay_writable(tmp_path):
    """test44 T3: "jenkins02", "iphone15", "tomcat10" … of a sealed description (no mark between letters and digits,
    not said after a secret's word) were withheld in every later prompt and refused in every write, the person's too;
    the description's real secrets stay held."""
    s, env = sealed_session(tmp_path, [
        "my iphone15 passcode is 771904 and the jenkins02 admin password is Kx81-lumen-quartz; the nginx01 box runs "
        "tomcat10, access code Lantern-7",
        "vpn: user jdoe, password Maple-Crown-Sixty on the thinkpad14 laptop (kubernetes1 cluster, firefox91)"], "t3")
    agent = {**env, **AGENT}
    for i, body in enumerate(("the jenkins02 build is red", "upgrade the iphone15 to iOS 18", "restart tomcat10",
                              "thinkpad14 battery is swollen", "firefox91 is too old", "the kubernetes1 cluster")):
        _mem(agent, "remember", f"project/t/n{i}", body)
    _mem(env, "remember", "project/ci/host", "jenkins02 is the CI host")
    for body in ("the admin password is Kx81-lumen-quartz", "use Kx81-lumen-quartz", "code Lantern-7",
                 "vpn Maple-Crown-Sixty"):
        _mem(agent, "remember", "project/t/x", body, ok=(0, 6))   # refused, or written with it redacted
    wait_store_processes_gone(s.store)
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"Kx81-lumen-quartz", b"Lantern-7", b"Maple-Crown-Sixty"]) == []


def test_a_remember_that_prompt_holding_a_sealed_value_is_refused_before_the_redaction(tmp_path):
    """test44 T9: "remember that the garage code is KESTREL 5517 HARBOR" (sealed: kestrel-5517-harbor) was stored as
    "the garage code is KESTREL [REDACTED:named-secret] HARBOR" and answered "Remembered as you asked": the
    redaction took a part first and the sealed-value check then saw no whole value.  Now the statement is checked as
    typed: refused ("Not stored, though asked"), and no part of it is written."""
    s, env = sealed_session(tmp_path, ["kestrel-5517-harbor"], "t9")
    out = s.prompt("remember that the garage code is KESTREL 5517 HARBOR")
    assert "Not stored, though asked" in out and "holds the sealed value of user/t90" in out, out
    assert "Remembered" not in out, out
    wait_store_processes_gone(s.store)
    keys = _mem(env, "keys").stdout
    assert "garage" not in keys, keys
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"KESTREL", b"HARBOR"]) == []
