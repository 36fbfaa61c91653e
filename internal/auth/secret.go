package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// KDF parameters: argon2id with OWASP's first recommended setting (19 MiB,
// 2 passes, 1 lane). They are written into each hash, so raising them later
// keeps old hashes verifiable.
type KDFParams struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

var DefaultKDF = KDFParams{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
)

// HashSecret derives a PHC-style argon2id string from a client secret.
func HashSecret(secret string, p KDFParams) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(secret), salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifySecret checks a secret against a HashSecret string in constant time.
func VerifySecret(secret, encoded string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("auth: not an argon2id hash")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errors.New("auth: unsupported argon2 version")
	}
	var p KDFParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return false, errors.New("auth: bad argon2 parameters")
	}
	if p.MemoryKiB > 1<<20 || p.Time > 16 || p.Threads == 0 || p.Time == 0 {
		return false, errors.New("auth: argon2 parameters out of range")
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errors.New("auth: bad salt")
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errors.New("auth: bad key")
	}
	got := argon2.IDKey([]byte(secret), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// NewSecret returns a random client secret: 32 bytes, hex encoded.
func NewSecret() (string, error) { return randomHex(32) }

// NewToken returns a random access token: 32 bytes as 64 lowercase hex
// characters, the spec's token form.
func NewToken() (string, error) { return randomHex(32) }

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// HashToken is how tokens and API keys are stored and looked up. They carry
// 256 random bits (API keys are at least checked for length), so a fast hash
// is enough; a slow KDF per request would only cost latency.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	var text [2 * sha256.Size]byte
	return string(text[:hex.Encode(text[:], sum[:])]) // one allocation, not EncodeToString's two
}

// EqualHashes compares two hex hashes in constant time.
func EqualHashes(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
