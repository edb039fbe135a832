package gateway

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Grant is what a bearer token may do: TOKENS.json maps each token to
// {"name": …, "role": "admin"|"analyst", "datasets": [NAME…]}. An analyst
// may release on, and read the budget of, the datasets listed; an admin may
// do so on every dataset, create budgets and read audit logs.
type Grant struct {
	Name     string   `json:"name"`
	Role     string   `json:"role"`
	Datasets []string `json:"datasets"`
}

// Roles.
const (
	RoleAdmin   = "admin"
	RoleAnalyst = "analyst"
)

// allows reports whether the grant covers dataset.
func (g *Grant) allows(dataset string) bool {
	if g.Role == RoleAdmin {
		return true
	}
	for _, d := range g.Datasets {
		if d == dataset {
			return true
		}
	}
	return false
}

// Tokens maps the SHA-256 of each bearer token to its grant (the tokens
// themselves are not kept in memory after loading).
type Tokens map[[32]byte]*Grant

// ParseTokens reads a TOKENS.json document. Every token must be at least 16
// characters, every role admin or analyst, every name non-empty. Errors name
// the grant's name, never the token.
func ParseTokens(b []byte) (Tokens, error) {
	var m map[string]*Grant
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("gateway: tokens: %v (want {\"TOKEN\": {\"name\": …, \"role\": \"admin\"|\"analyst\", \"datasets\": […]}})", err)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("gateway: tokens: no token defined")
	}
	out := Tokens{}
	for tok, g := range m {
		if g == nil || strings.TrimSpace(g.Name) == "" {
			return nil, fmt.Errorf("gateway: tokens: a grant has no name")
		}
		if len(tok) < 16 {
			return nil, fmt.Errorf("gateway: tokens: the token of %q has %d characters, need at least 16", g.Name, len(tok))
		}
		if g.Role != RoleAdmin && g.Role != RoleAnalyst {
			return nil, fmt.Errorf("gateway: tokens: %q has role %q, must be admin or analyst", g.Name, g.Role)
		}
		out[sha256.Sum256([]byte(tok))] = g
	}
	return out, nil
}

// LoadTokens reads TOKENS.json from path.
func LoadTokens(path string) (Tokens, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gateway: tokens: %w", err)
	}
	return ParseTokens(b)
}

func (t Tokens) lookup(token string) *Grant {
	if token == "" {
		return nil
	}
	return t[sha256.Sum256([]byte(token))]
}
