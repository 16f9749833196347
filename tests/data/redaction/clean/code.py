"""Ordinary code that talks about credentials without containing any."""

import getpass
import hashlib
import os
import secrets
import uuid
from dataclasses import dataclass
from typing import Optional


@dataclass
class Settings:
    password: Optional[str] = None
    api_key: str = ""
    token: str | None = None
    secret_name: str = "prod/db"
    password_min_length: int = 12
    token_ttl_seconds: int = 3600


def load(env=os.environ):
    password = getpass.getpass("Password: ")
    token = env.get("API_TOKEN") or env["FALLBACK_TOKEN"]
    api_key = settings.api_key
    secret = self._secret
    access_key = get_access_key(profile="default")
    tokens = tokenizer.tokenize(text)
    for i in range(len(tokens)):
        token = tokens[i]
    token = next_token2
    password = request.form["password"]
    secret = secrets.token_hex(32)
    api_key = os.getenv("API_KEY", default=None)
    token_type = "bearer"
    session_token = uuid.uuid4().hex
    password_hash = hashlib.sha256(password.encode()).hexdigest()
    headers = {"Authorization": f"Bearer {token}"}
    auth = ("user", password)
    url = f"https://{user}:{password}@{host}/repo.git"
    return Settings(password=password, api_key=api_key, token=token)


class TokenBucket:
    def __init__(self, tokens: int = 10, refill_per_second: float = 1.5):
        self.tokens = tokens
        self.max_tokens = tokens


KEYS = {"cache_key": "user:1842:profile", "primary_key": "id", "sort_key": "created_at"}
PASSWORD_FIELD = "password"
TOKEN_URL = "https://oauth2.googleapis.com/token"
