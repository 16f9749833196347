"""objstore: the mem library. This module is its public API.

Front ends (``cmds``, the hooks' entry point, servers) import only from here::

    from objstore import Store, remember, current, recall

Every name below is loaded on first use (PEP 562 module ``__getattr__``), so
``import objstore`` costs almost nothing and pulls in neither tantivy,
cryptography, click nor prompt_toolkit; a command pays only for the
subpackages it calls. The layers, lowest first (``docs/design.md``):

``core`` (objects, packs, refs, reflogs, the store) → ``index`` (the derived
Tantivy index) → ``memory`` (facts, sessions, tombstones, queue, decay, forget)
→ ``capture`` / ``retrieval`` / ``vault`` → ``integrations``, ``remote``.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> (module, attribute)
_API: dict[str, tuple[str, str]] = {
    "open_store": ("objstore.memory.opening", "open_store"),
    "Store": ("objstore.core.store", "Store"),
    "is_store": ("objstore.core.store", "is_store"),
    "append_log": ("objstore.core.store", "append_log"),
    "now_ms": ("objstore.core.store", "now_ms"),
    "MemError": ("objstore.core.errors", "MemError"),
    "AmbiguousId": ("objstore.core.errors", "AmbiguousId"),
    "IntegrityError": ("objstore.core.errors", "IntegrityError"),
    "InvalidInput": ("objstore.core.errors", "InvalidInput"),
    "NotFound": ("objstore.core.errors", "NotFound"),
    "Refused": ("objstore.core.errors", "Refused"),
    "Fact": ("objstore.core.objects", "Fact"),
    "Sealed": ("objstore.core.objects", "Sealed"),
    "Tombstone": ("objstore.core.objects", "Tombstone"),
    "Turn": ("objstore.core.objects", "Turn"),
    "MAX_TIME_MS": ("objstore.core.objects", "MAX_TIME_MS"),
    "decode": ("objstore.core.codec", "decode"),
    "check_prefix": ("objstore.core.ids", "check_prefix"),
    "fact_ref": ("objstore.core.refs", "fact_ref"),
    "validate_key": ("objstore.core.refs", "validate_key"),
    "parse_version_spec": ("objstore.core.refs", "parse_version_spec"),
    "fsck": ("objstore.core.fsck", "fsck"),
    "repair_store": ("objstore.memory.repair", "repair"),
    "RepairReport": ("objstore.memory.repair", "RepairReport"),
    "ReadOnlyStore": ("objstore.core.errors", "ReadOnlyStore"),
    "gc": ("objstore.core.gc", "gc"),
    "parse_prune": ("objstore.core.gc", "parse_prune"),
    "remember": ("objstore.memory.facts", "remember"),
    "current": ("objstore.memory.facts", "current"),
    "current_of": ("objstore.memory.facts", "current_of"),
    "versions": ("objstore.memory.facts", "versions"),
    "walk": ("objstore.memory.facts", "walk"),
    "list_keys": ("objstore.memory.facts", "list_keys"),
    "resolve_version": ("objstore.memory.facts", "resolve_version"),
    "queue_accept": ("objstore.memory.queue", "accept"),
    "queue_reject": ("objstore.memory.queue", "reject"),
    "queue_resolve": ("objstore.memory.queue", "resolve"),
    "queue_items": ("objstore.memory.queue", "items"),
    "queue_drop": ("objstore.memory.queue", "drop"),
    "queue_current_version": ("objstore.memory.queue", "current_version"),
    "flag_conflict": ("objstore.memory.queue", "flag_conflict"),
    "decay": ("objstore.memory.decay", "decay"),
    "dormant": ("objstore.memory.decay", "dormant"),
    "pin": ("objstore.memory.decay", "pin"),
    "unpin": ("objstore.memory.decay", "unpin"),
    "reinforce": ("objstore.memory.decay", "reinforce"),
    "forget": ("objstore.memory.forget", "forget"),
    "forget_key": ("objstore.memory.forget", "forget_key"),
    "plan_forget": ("objstore.memory.forget", "plan_forget"),
    "preview": ("objstore.memory.forget", "preview"),
    "scan_store": ("objstore.memory.forget", "scan_store"),
    "append_history": ("objstore.memory.history", "append_history"),
    "load_history": ("objstore.memory.history", "load_history"),
    "purge_history": ("objstore.memory.history", "purge_history"),
    "project_aliases": ("objstore.memory.scope", "project_aliases"),
    "import_transcripts": ("objstore.capture.importer", "import_transcripts"),
    "imported_sources": ("objstore.capture.importer", "imported_sources"),
    "list_sessions": ("objstore.memory.sessions", "list_sessions"),
    "session_turns": ("objstore.memory.sessions", "session_turns"),
    "count_sessions": ("objstore.memory.sessions", "count_sessions"),
    "resolve_session": ("objstore.memory.sessions", "resolve_session"),
    "find_in_sources": ("objstore.capture.scrub", "find"),
    "scrub_source": ("objstore.capture.scrub", "scrub"),
    "catch_up": ("objstore.capture.sync", "catch_up"),
    "sync_files": ("objstore.capture.sync", "sync_files"),
    "subagent_files": ("objstore.capture.sync", "subagent_files"),
    "has_marker": ("objstore.capture.sync", "has_marker"),
    "prompt_snapshot": ("objstore.capture.sync", "prompt_snapshot"),
    "capture_shell": ("objstore.capture.sync", "capture_shell"),
    "capture_prompt": ("objstore.capture.sync", "capture_prompt"),
    "mark_no_capture": ("objstore.capture.sync", "mark_no_capture"),
    "load_capture_config": ("objstore.capture.sync", "load_config"),
    "recall": ("objstore.retrieval.recall", "recall"),
    "search": ("objstore.retrieval.search", "search"),
    "reindex": ("objstore.retrieval.search", "reindex"),
    "inject_for_prompt": ("objstore.retrieval.context", "inject_for_prompt"),
    "GateConfig": ("objstore.retrieval.context", "GateConfig"),
    "ContextConfig": ("objstore.retrieval.context", "ContextConfig"),
    "load_context_config": ("objstore.retrieval.context", "load_context_config"),
    "render_context": ("objstore.retrieval.context", "render_context"),
    "session_start_block": ("objstore.retrieval.context", "session_start_block"),
    "LOCOMO_CATEGORIES": ("objstore.retrieval.evaluate", "LOCOMO_CATEGORIES"),
    "eval_injection": ("objstore.retrieval.evaluate", "eval_injection"),
    "eval_knowledge_update": ("objstore.retrieval.evaluate", "eval_knowledge_update"),
    "eval_locomo": ("objstore.retrieval.evaluate", "eval_locomo"),
    "eval_supersession": ("objstore.retrieval.evaluate", "eval_supersession"),
    "has_vault": ("objstore.vault.sealed", "has_vault"),
    "vault_paths": ("objstore.vault.sealed", "vault_paths"),
    "vault_info": ("objstore.vault.sealed", "vault_info"),
    "init_vault": ("objstore.vault.sealed", "init_vault"),
    "check_passphrase": ("objstore.vault.sealed", "check_passphrase"),
    "VAULT_WORK_FACTOR": ("objstore.vault.sealed", "DEFAULT_WORK_FACTOR"),
    "armor_sealed": ("objstore.vault.sealed", "armor"),
    "current_sealed": ("objstore.vault.sealed", "current_sealed"),
    "forget_sealed": ("objstore.vault.sealed", "forget_sealed"),
    "import_sealed": ("objstore.vault.sealed", "import_sealed"),
    "is_sealed": ("objstore.memory.facts", "is_sealed"),
    "list_sealed": ("objstore.vault.sealed", "list_sealed"),
    "open_identity": ("objstore.vault.sealed", "open_identity"),
    "open_value": ("objstore.vault.sealed", "open_value"),
    "pick_version": ("objstore.vault.sealed", "pick_version"),
    "refuse_if_sealed": ("objstore.memory.facts", "refuse_if_sealed"),
    "remember_sealed": ("objstore.vault.sealed", "remember_sealed"),
    "seal_key": ("objstore.vault.sealed", "seal_key"),
    "sealed_versions": ("objstore.vault.sealed", "sealed_versions"),
    "unseal_key": ("objstore.vault.sealed", "unseal_key"),
    "RemoteUnavailable": ("objstore.core.errors", "RemoteUnavailable"),
    "WrongKey": ("objstore.core.errors", "WrongKey"),
    "RemoteSpec": ("objstore.remote.config", "RemoteSpec"),
    "list_remotes": ("objstore.remote.config", "list_remotes"),
    "get_remote": ("objstore.remote.config", "get_remote"),
    "add_remote": ("objstore.remote.config", "add_remote"),
    "remove_remote": ("objstore.remote.config", "remove_remote"),
    "export_sync_key": ("objstore.remote.config", "export_key"),
    "import_sync_key": ("objstore.remote.config", "write_key"),
    "S3_SETTINGS": ("objstore.remote.transport", "S3_SETTINGS"),
    "push": ("objstore.remote.sync", "push"),
    "pull": ("objstore.remote.sync", "pull"),
    "clone": ("objstore.remote.sync", "clone"),
    "backup": ("objstore.remote.sync", "backup"),
    "restore": ("objstore.remote.sync", "restore"),
    "list_snapshots": ("objstore.remote.sync", "list_snapshots"),
    "remote_info": ("objstore.remote.sync", "remote_info"),
    "reflog": ("objstore.porcelain.history", "reflog"),
    "diff_versions": ("objstore.porcelain.history", "diff_versions"),
    "blame": ("objstore.porcelain.history", "blame"),
    "revert": ("objstore.porcelain.history", "revert"),
    "store_stats": ("objstore.porcelain.stats", "store_stats"),
    "export_jsonl": ("objstore.porcelain.interchange", "export_jsonl"),
    "export_markdown": ("objstore.porcelain.interchange", "export_markdown"),
    "import_jsonl": ("objstore.porcelain.interchange", "import_jsonl"),
    "scan_everywhere": ("objstore.porcelain.scan", "scan"),
    "diagnose": ("objstore.porcelain.doctor", "diagnose"),
    "doctor_fix": ("objstore.porcelain.doctor", "fix"),
    "import_markdown": ("objstore.capture.markdown", "import_markdown"),
    "exclusion_preview": ("objstore.capture.exclusions", "preview"),
    "add_exclusion": ("objstore.capture.exclusions", "add_exclusion"),
    "remove_exclusion": ("objstore.capture.exclusions", "remove_exclusion"),
    "list_exclusions": ("objstore.capture.exclusions", "list_exclusions"),
    "proxy_prepare": ("objstore.integrations.proxy", "prepare"),
    "proxy_capture_response": ("objstore.integrations.proxy", "capture_response"),
    "install_record": ("objstore.integrations.install", "install_record"),
    "install_record_path": ("objstore.integrations.install", "install_record_path"),
    "curate_paths": ("objstore.integrations.install", "curate_paths"),
    "plan_install": ("objstore.integrations.install", "plan_install"),
    "plan_uninstall": ("objstore.integrations.install", "plan_uninstall"),
    "write_settings": ("objstore.integrations.install", "write_settings"),
    "AuthError": ("objstore.integrations.access", "AuthError"),
    "Caller": ("objstore.integrations.access", "Caller"),
    "ConfirmTokens": ("objstore.integrations.access", "ConfirmTokens"),
    "KeyRing": ("objstore.integrations.access", "KeyRing"),
    "Limits": ("objstore.integrations.access", "Limits"),
    "RateLimited": ("objstore.integrations.access", "RateLimited"),
    "RateLimiter": ("objstore.integrations.access", "RateLimiter"),
    "MCP_ROLES": ("objstore.integrations.access", "ROLES"),
    "WRITING_TOOLS": ("objstore.integrations.access", "WRITING_TOOLS"),
    "check_arguments": ("objstore.integrations.access", "check_arguments"),
    "check_namespace": ("objstore.integrations.access", "check_namespace"),
    "mcp_keys_path": ("objstore.integrations.access", "keys_path"),
    "mint_mcp_key": ("objstore.integrations.access", "mint_key"),
    "read_mcp_keys": ("objstore.integrations.access", "read_keys"),
    "revoke_mcp_key": ("objstore.integrations.access", "revoke_key"),
    "query_digest": ("objstore.integrations.access", "query_digest"),
    "tools_for": ("objstore.integrations.access", "tools_for"),
    "MemoryTools": ("objstore.integrations.mcptools", "MemoryTools"),
    "MCP_NOTICE": ("objstore.integrations.mcptools", "NOTICE"),
    "claude_code_mcp_entry": ("objstore.integrations.mcpinstall", "claude_code_entry"),
    "plan_claude_code_mcp": ("objstore.integrations.mcpinstall", "plan_claude_code"),
    "plan_claude_code_mcp_removal": ("objstore.integrations.mcpinstall", "plan_claude_code_removal"),
    "plan_codex_mcp": ("objstore.integrations.mcpinstall", "plan_codex"),
    "plan_codex_mcp_removal": ("objstore.integrations.mcpinstall", "plan_codex_removal"),
}

__all__ = sorted(_API)


def __getattr__(name: str) -> Any:
    """Load a public name on first use and cache it in this module.

    Raises:
        AttributeError: ``name`` is not part of the public API.
    """
    try:
        module, attr = _API[name]
    except KeyError:
        raise AttributeError(f"module 'objstore' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
