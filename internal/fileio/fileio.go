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
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		return &readCloser{Reader: bufio.NewReaderSize(zr, 1<<16), closers: []io.Closer{zr, f}}, nil
	}
	return &readCloser{Reader: br, closers: []io.Closer{f}}, nil
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
