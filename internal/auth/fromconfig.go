package auth

import (
	"time"

	"mdqs/internal/config"
)

// FromConfig is the service's configuration from config.toml's [auth].
func FromConfig(c config.Auth) Config {
	return Config{
		TokenTTL:           time.Duration(c.TokenTTLHours) * time.Hour,
		MaxTokensPerClient: c.TokenMaxPerClient,
		Signature:          SignatureMode(c.Signature),
		MaxClockSkew:       c.MaxClockSkew.Duration,
		NonceCapacity:      c.NonceCapacity,
		TokenCacheSize:     c.TokenCacheSize,
		RevocationCheck:    c.RevocationCheck.Duration,
		RefuseSignatureV1:  !c.SignatureV1,
	}
}
