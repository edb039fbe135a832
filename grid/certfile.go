package grid

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// WriteCSV writes the domain in the format ReadLoadDomainCSV reads (every
// bus with a nonzero bound, in network order).
func (d LoadDomain) WriteCSV(w io.Writer, n *Network) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "bus,min,max")
	for i, id := range n.BusID {
		if d.Lo[i] != 0 || d.Hi[i] != 0 {
			fmt.Fprintf(bw, "%d,%s,%s\n", id, strconv.FormatFloat(d.Lo[i], 'g', -1, 64), strconv.FormatFloat(d.Hi[i], 'g', -1, 64))
		}
	}
	return bw.Flush()
}

// Digest returns "sha256:" and the hex SHA-256 of the canonical domain: the
// lines "ID,min,max\n" of every bus in network order, numbers in Go's
// shortest round-trip form ('g', −1).
func (d LoadDomain) Digest(n *Network) string {
	h := sha256.New()
	for i, id := range n.BusID {
		fmt.Fprintf(h, "%d,%s,%s\n", id, strconv.FormatFloat(d.Lo[i], 'g', -1, 64), strconv.FormatFloat(d.Hi[i], 'g', -1, 64))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Digest returns "sha256:" and the hex SHA-256 of the data the DC-OPF with
// market rules depends on: bus IDs, Pbusinj, the units' buses, limits and
// cost curves (the MATPOWER cost rows), and every branch's buses, B, flow
// limits and Pfinj (float64 bits, little endian, in network order). Loads are
// not part of it (they are the private data).
func (n *Network) Digest() string {
	h := sha256.New()
	f := func(v ...float64) {
		for _, x := range v {
			binary.Write(h, binary.LittleEndian, math.Float64bits(x))
		}
	}
	f(float64(n.NumBuses()), float64(n.NumGens()), float64(n.NumBranches()))
	for i, id := range n.BusID {
		f(float64(id), n.Pbusinj[i])
	}
	for g, gi := range n.Gen {
		c := &n.Case.Costs[gi]
		f(float64(n.BusID[n.GenBus[g]]), n.Pmin[g], n.Pmax[g], float64(c.Model), float64(len(c.Coeffs)))
		f(c.Coeffs...)
		f(float64(len(c.X)))
		f(c.X...)
		f(c.Y...)
	}
	for l := range n.Branch {
		f(float64(n.BusID[n.From[l]]), float64(n.BusID[n.To[l]]), n.B[l], n.FlowMin[l], n.FlowMax[l], n.Pfinj[l])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// CertificateFormat names the CERT.json format version.
const CertificateFormat = "privopt-cost-certificate/1"

// CertificateFile is the CERT.json written by `privopt certify`: a cost
// sensitivity certificate bound to one network and one public domain.
//
//	{
//	  "format": "privopt-cost-certificate/1",
//	  "method": "lmp-bound" | "lmp-bound-n1" | "uncongested-merit-order" | "price-cap",
//	  "alpha": α (MW), "bound": α·per_mw ($/h), "per_mw": $/MWh,
//	  "rules": {"PriceCap": …, "PriceFloor": …},
//	  "n_1": false,
//	  "domain_digest": "sha256:…" (LoadDomain.Digest),
//	  "case_digest": "sha256:…" (Network.Digest, after the cost conversion),
//	  "cost_segments": secant segments per quadratic cost (0: none converted),
//	  "certificate": { the CostCertificate: method, evidence (e.g. "lmp": LMPEvidence,
//	                   with "proof": LMPProof when it is checkable: CheckLMPProof) }
//	}
//
// Everything in it is a function of the network and the public domain.
type CertificateFile struct {
	Format       string           `json:"format"`
	Method       string           `json:"method"`
	Alpha        float64          `json:"alpha"`
	Bound        float64          `json:"bound"`
	PerMW        float64          `json:"per_mw"`
	Rules        MarketRules      `json:"rules"`
	Security     bool             `json:"n_1"`
	DomainDigest string           `json:"domain_digest"`
	CaseDigest   string           `json:"case_digest"`
	CostSegments int              `json:"cost_segments"`
	Certificate  *CostCertificate `json:"certificate"`
}

// NewCertificateFile binds c to the network and the domain.
func (n *Network) NewCertificateFile(c *CostCertificate, dom LoadDomain, security bool, costSegments int) *CertificateFile {
	return &CertificateFile{Format: CertificateFormat, Method: c.Method, Alpha: c.Alpha, Bound: c.Bound, PerMW: c.PerMW,
		Rules: c.Rules, Security: security, DomainDigest: dom.Digest(n), CaseDigest: n.Digest(), CostSegments: costSegments, Certificate: c}
}

// LoadCostCertificate reads a CERT.json and checks it against the network
// and the domain: format, digests, the summary against the certificate, and
// the certificate's arithmetic (Bound ≥ α·PerMW, PerMW covering the recorded
// price bounds, at most the price cap). An "lmp-bound" certificate with a
// proof (LMPEvidence.Proof) is always checked (CheckLMPProof: no solver,
// linear in its size). With full, a certificate without a proof is also
// re-derived (VerifyCostCertificate: for "lmp-bound" the derived constants
// and the KKT program are solved again, which takes as long as certifying).
func LoadCostCertificate(ctx context.Context, r io.Reader, n *Network, dom LoadDomain, full bool) (*CertificateFile, error) {
	var f CertificateFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("grid: certificate file: %w", err)
	}
	if f.Format != CertificateFormat {
		return nil, fmt.Errorf("%w: format %q, want %q", ErrNotCertified, f.Format, CertificateFormat)
	}
	c := f.Certificate
	if c == nil {
		return nil, fmt.Errorf("%w: no certificate in the file", ErrNotCertified)
	}
	if err := dom.Validate(n); err != nil {
		return nil, err
	}
	if got := n.Digest(); got != f.CaseDigest {
		return nil, fmt.Errorf("%w: case digest %s, the network's is %s", ErrNotCertified, f.CaseDigest, got)
	}
	if got := dom.Digest(n); got != f.DomainDigest {
		return nil, fmt.Errorf("%w: domain digest %s, the domain's is %s", ErrNotCertified, f.DomainDigest, got)
	}
	if f.Method != c.Method || f.Alpha != c.Alpha || f.Bound != c.Bound || f.PerMW != c.PerMW || f.Rules != c.Rules {
		return nil, fmt.Errorf("%w: the summary does not match the certificate", ErrNotCertified)
	}
	if err := c.checkArithmetic(); err != nil {
		return nil, err
	}
	if f.Security && c.Method != "price-cap" && c.Method != "lmp-bound-n1" {
		return nil, fmt.Errorf("%w: an N-1 certificate must be the price-cap bound or the N-1 LMP bound (method %q)", ErrNotCertified, c.Method)
	}
	if !f.Security && c.Method == "lmp-bound-n1" {
		return nil, fmt.Errorf("%w: an lmp-bound-n1 certificate covers the N-1 program only (n_1 is false)", ErrNotCertified)
	}
	if full || (c.Method == "lmp-bound" && c.LMP.Proof != nil) {
		if err := n.VerifyCostCertificateContext(ctx, c, dom); err != nil {
			return nil, err
		}
	}
	return &f, nil
}

// checkArithmetic checks the relations between the certificate's numbers
// that need no network.
func (c *CostCertificate) checkArithmetic() error {
	if err := c.Rules.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	if !(c.Alpha > 0) || math.IsInf(c.Alpha, 0) || !(c.PerMW >= 0) || math.IsInf(c.PerMW, 0) {
		return fmt.Errorf("%w: alpha %v, per_mw %v out of range", ErrNotCertified, c.Alpha, c.PerMW)
	}
	if c.Bound < c.Alpha*c.PerMW*(1-1e-12) {
		return fmt.Errorf("%w: bound %v < α·per_mw = %v", ErrNotCertified, c.Bound, c.Alpha*c.PerMW)
	}
	switch c.Method {
	case "price-cap":
		if c.PerMW < c.Rules.MaxPrice()*(1-1e-12) {
			return fmt.Errorf("%w: per_mw %v < max(cap, −floor) = %v", ErrNotCertified, c.PerMW, c.Rules.MaxPrice())
		}
	case "lmp-bound", "lmp-bound-n1":
		e := c.LMP
		if e == nil {
			return fmt.Errorf("%w: %s certificate without evidence", ErrNotCertified, c.Method)
		}
		if c.Method == "lmp-bound-n1" && (c.N1 == nil || !c.N1.Screened || e.Proof != nil) {
			return fmt.Errorf("%w: lmp-bound-n1 certificate without a complete screening record", ErrNotCertified)
		}
		if e.Proof != nil {
			if !(c.PerMW >= e.Proof.PerMW) {
				return fmt.Errorf("%w: per_mw %v below the proof's %v", ErrNotCertified, c.PerMW, e.Proof.PerMW)
			}
		} else if c.PerMW < math.Max(e.MaxPrice, e.MinPrice)*(1-1e-12) {
			return fmt.Errorf("%w: per_mw %v below the recorded price bounds %v, %v", ErrNotCertified, c.PerMW, e.MaxPrice, e.MinPrice)
		}
		if c.PerMW >= c.Rules.MaxPrice() {
			return fmt.Errorf("%w: lmp-bound per_mw %v is not below the price cap", ErrNotCertified, c.PerMW)
		}
	case "uncongested-merit-order":
	default:
		return fmt.Errorf("%w: unknown method %q", ErrNotCertified, c.Method)
	}
	return nil
}

// Write writes the file as indented JSON, or compact JSON when it carries
// a proof (its duals are megabytes; indentation would double them).
func (f *CertificateFile) Write(w io.Writer) error {
	var b []byte
	var err error
	if f.Certificate != nil && f.Certificate.LMP != nil && f.Certificate.LMP.Proof != nil {
		b, err = json.Marshal(f)
	} else {
		b, err = json.MarshalIndent(f, "", "  ")
	}
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
