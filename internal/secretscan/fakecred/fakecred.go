// Package fakecred makes credentials for tests of the secret scanner:
// shaped like the real ones, random, valid for nothing. They are made
// when a test runs, so that the repository holds no credential-shaped
// string for its own scanners (or GitHub's push protection) to flag.
package fakecred

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"math/rand/v2"
	"strings"
)

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	digits = "0123456789"
	base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	base64 = alnum + "+/"
)

// Maker makes credentials from a seeded source: the same seed, the same
// credentials.
type Maker struct{ r *rand.Rand }

// New is a Maker seeded with seed.
func New(seed uint64) *Maker {
	return &Maker{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (m *Maker) pick(set string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(set[m.r.IntN(len(set))])
	}
	return b.String()
}

// GitHubPAT is a classic GitHub personal access token: ghp_ and 36
// letters and digits.
func (m *Maker) GitHubPAT() string { return "ghp_" + m.pick(alnum, 36) }

// SlackBotToken is a Slack bot token: xoxb-, two numbers, 24 letters and
// digits.
func (m *Maker) SlackBotToken() string {
	return "xoxb-" + m.pick(digits, 12) + "-" + m.pick(digits, 13) + "-" + m.pick(alnum, 24)
}

// AWSAccessKeyID is an AWS access key id: AKIA and 16 of base32's
// characters.
func (m *Maker) AWSAccessKeyID() string { return "AKIA" + m.pick(base32, 16) }

// AWSSecretAccessKey is an AWS secret access key: 40 of base64's
// characters.
func (m *Maker) AWSSecretAccessKey() string { return m.pick(base64, 40) }

// PrivateKeyPEM is an Ed25519 private key in PKCS #8, PEM-encoded.
func (m *Maker) PrivateKeyPEM() string {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(m.r.UintN(256))
	}
	der, err := x509.MarshalPKCS8PrivateKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		panic(err) // an Ed25519 key always marshals
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}
