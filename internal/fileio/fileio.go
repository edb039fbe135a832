// Package fileio opens model files for the readers (cbf, mathprog): a file
// compressed with gzip (RFC 1952) is recognized by its magic bytes 1f 8b,
// whatever its name, and decompressed transparently.
package fileio

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

// Open opens path for reading; when the file starts with the gzip magic
// bytes the returned reader yields the decompressed stream. Close closes
// both the decompressor and the file.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, zr, err := decompress(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	closers := []io.Closer{f}
	if zr != nil {
		closers = []io.Closer{zr, f}
	}
	return &readCloser{Reader: r, closers: closers}, nil
}

// NewReader wraps r (for example standard input) like Open: a stream that
// starts with the gzip magic bytes is decompressed.
func NewReader(r io.Reader) (io.Reader, error) {
	out, _, err := decompress(r)
	return out, err
}

// decompress returns a buffered reader of r's content, decompressed (zr
// non-nil) when it starts with the gzip magic bytes 1f 8b.
func decompress(r io.Reader) (out io.Reader, zr *gzip.Reader, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return bufio.NewReaderSize(zr, 1<<16), zr, nil
	}
	return br, nil, nil
}

type readCloser struct {
	io.Reader
	closers []io.Closer
}

func (r *readCloser) Close() error {
	var first error
	for _, c := range r.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
