package noise

import (
	crand "crypto/rand"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Source supplies uniformly distributed 64-bit words. All samplers in this
// package draw their randomness from a Source; a nil Source means
// CryptoSource(), the default for real releases.
type Source interface {
	Uint64() uint64
}

type cryptoSource struct{}

// Uint64 reads 8 bytes from crypto/rand. crypto/rand.Read never returns an
// error on supported platforms (Go ≥ 1.24 crashes the program irrecoverably
// instead of returning short reads), so the error is not inspected.
func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// CryptoSource returns the operating system's cryptographically secure random
// source (crypto/rand). It is the default source of every sampler.
func CryptoSource() Source { return cryptoSource{} }

// NewSeededSource returns a reproducible ChaCha8 stream seeded with seed. It is
// meant for experiments and tests only: noise drawn from a known seed protects
// nothing.
func NewSeededSource(seed uint64) Source {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	binary.LittleEndian.PutUint64(s[8:], 0x9e3779b97f4a7c15)
	return rand.NewChaCha8(s)
}

func orCrypto(src Source) Source {
	if src == nil {
		return cryptoSource{}
	}
	return src
}

// uniform01 returns a uniform draw from (0, 1) in which every float64 of the
// interval can occur with the probability of the real interval it rounds
// from: the exponent is geometric (one random bit per binade, as in Mironov
// 2012, "On significance of the least significant bits for differential
// privacy", Sec. 5.2) and the 52 mantissa bits are uniform. A plain
// Uint64()>>11 * 2^-53 draw instead leaves every value below 2^-53 out and
// makes inverse-CDF tails coarse.
func uniform01(src Source) float64 {
	exp := -1 // result in [2^exp, 2^(exp+1))
	for {
		w := src.Uint64()
		if w != 0 {
			exp -= bits.LeadingZeros64(w)
			break
		}
		exp -= 64
		if exp < -1074 {
			return math.SmallestNonzeroFloat64
		}
	}
	m := src.Uint64() >> 12 // 52 mantissa bits
	if exp < -1022 {
		return math.SmallestNonzeroFloat64 * float64(1+(m>>uint(-1022-exp)))
	}
	x := math.Ldexp(1+float64(m)/(1<<52), exp)
	if x >= 1 {
		x = math.Nextafter(1, 0)
	}
	return x
}

// randBit returns a uniform random bit.
func randBit(src Source) bool { return src.Uint64()&1 == 1 }
