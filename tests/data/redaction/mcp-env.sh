# let Codex reach mem serve (docs/mcp.md)
export MEM_MCP_KEY=memk_aPKFAKEmNHQiXClYaGhAl2h8bepFpEdiKXWl8GQ-uDb
codex
