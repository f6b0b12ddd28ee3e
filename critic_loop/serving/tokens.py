"""Check the signed tokens (JWT) that identify a LangGraph server's users (docs/security.md)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jwt
from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ASYMMETRIC_ALGORITHMS = (
    *("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"),
    *("ES256", "ES384", "ES512", "EdDSA"),
)
"""What a key from the JWKS URL may sign with (never HS256: its public key is no secret)."""

SECRET_ALGORITHM = "HS256"  # what the shared secret signs with

MIN_SECRET_CHARS = 32  # A shorter HS256 secret can be guessed offline from one token


class TokenSettings(BaseSettings):
    """How this server checks its users' tokens (the operator's environment)."""

    # an error must never repeat a setting's value: the secret is one
    model_config = SettingsConfigDict(
        env_prefix="CRITIC_LOOP_AUTH_",
        extra="ignore",
        hide_input_in_errors=True,
        use_attribute_docstrings=True,
    )

    secret: SecretStr | None = None
    """The HS256 secret that signs the users' tokens (32+ characters)."""
    jwks_url: str | None = None
    """An identity provider's key set (JWKS), whose keys sign them."""
    audience: str | None = None
    """The `aud` every token must name."""
    issuer: str | None = None
    """The `iss` every token must name."""
    identity_claim: str = Field(default="sub", min_length=1)
    """The claim that names the user."""
    required: bool = False
    """Refuse every request while no secret or JWKS URL is set."""

    @field_validator("secret")
    @classmethod
    def _long_enough(cls, secret: SecretStr | None) -> SecretStr | None:
        if secret is not None and len(secret.get_secret_value()) < MIN_SECRET_CHARS:
            raise ValueError(
                f"it must be at least {MIN_SECRET_CHARS} characters long (a shorter one can "
                "be guessed from a single token)"
            )
        return secret

    @property
    def verifies(self) -> bool:
        return self.secret is not None or bool(self.jwks_url)


def checked_settings() -> TokenSettings:
    """Return the operator's token settings (ValueError: each invalid one's variable and rule)."""
    try:
        return TokenSettings()
    except ValidationError as error:
        problems = [
            f"CRITIC_LOOP_AUTH_{str(item['loc'][0]).upper()}: "
            + str(item["msg"]).removeprefix("Value error, ")
            for item in error.errors(include_input=False)
        ]
        raise ValueError("; ".join(problems)) from None


class InvalidToken(Exception):
    """The token is missing, malformed, expired, or not signed by a key this server trusts."""


@dataclass(frozen=True)
class Identity:
    """Who a valid token says the caller is."""

    identity: str
    display_name: str


@functools.cache  # one client per URL keeps the fetched keys: no fetch per request
def _jwks_client(url: str) -> jwt.PyJWKClient:
    return jwt.PyJWKClient(url, cache_keys=True, lifespan=300, timeout=10)


def _key(token: str, settings: TokenSettings) -> tuple[Any, list[str]]:
    algorithm = jwt.get_unverified_header(token).get("alg")
    if algorithm == SECRET_ALGORITHM and settings.secret is not None:
        return settings.secret.get_secret_value(), [SECRET_ALGORITHM]
    if algorithm in ASYMMETRIC_ALGORITHMS and settings.jwks_url:
        signing_key = _jwks_client(settings.jwks_url).get_signing_key_from_jwt(token)
        return signing_key.key, list(ASYMMETRIC_ALGORITHMS)
    raise InvalidToken(f"tokens signed with {algorithm!r} are not accepted here")


def verify(token: str, settings: TokenSettings) -> Identity:
    """Check `token`'s signature, expiry, audience and issuer; return whom it names (blocking)."""
    try:
        key, algorithms = _key(token, settings)
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=algorithms,
            audience=settings.audience,
            issuer=settings.issuer,
            options={
                "require": ["exp", settings.identity_claim],
                "verify_aud": settings.audience is not None,
            },
        )
    except jwt.PyJWTError as error:
        raise InvalidToken(str(error) or type(error).__name__) from error
    identity = claims[settings.identity_claim]
    if not isinstance(identity, str) or not identity:
        raise InvalidToken(f"the token's {settings.identity_claim!r} claim is not a name")
    name = claims.get("name")
    return Identity(identity, name if isinstance(name, str) and name else identity)
