package archive

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestReadAheadDeliversTheStream: whatever the source's read sizes and the reader's buffer
// sizes, the bytes come out in order and whole, then the source's terminal error.
func TestReadAheadDeliversTheStream(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := rapid.SliceOfN(rapid.Byte(), 0, 16*readAheadMinChunk).Draw(t, "data") // several chunks, as they grow
		failAt := rapid.IntRange(-1, len(data)).Draw(t, "failAt")                     // -1: ends with io.EOF
		var src io.Reader = bytes.NewReader(data)
		wantErr := io.EOF
		if failAt >= 0 {
			wantErr = errors.New("source broke")
			src = io.MultiReader(bytes.NewReader(data[:failAt]), iotest.ErrReader(wantErr))
			data = data[:failAt]
		}
		switch rapid.IntRange(0, 2).Draw(t, "source") {
		case 1:
			src = iotest.OneByteReader(src)
		case 2:
			src = iotest.HalfReader(src)
		}
		p := newReadAhead(src, func() error { return nil })
		defer p.stop()

		var got []byte
		buf := make([]byte, rapid.IntRange(1, 100<<10).Draw(t, "buf"))
		var err error
		for {
			var n int
			n, err = p.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		if !bytes.Equal(data, got) {
			t.Fatalf("got %d bytes, want %d (or different content)", len(got), len(data))
		}
		if err != wantErr {
			t.Fatalf("ended with %v, want %v", err, wantErr)
		}
		if n, again := p.Read(buf); n != 0 || again != wantErr {
			t.Fatalf("read after the end: %d, %v", n, again)
		}
	})
}

// TestReadAheadStopEndsTheProducer: stopping before the stream is read leaves no goroutine
// behind, whether the producer is blocked on the source or on full chunks.
func TestReadAheadStopEndsTheProducer(t *testing.T) {
	before := runtime.NumGoroutine()
	// Blocked on full chunks: an endless source.
	p := newReadAhead(zeros{}, func() error { return nil })
	buf := make([]byte, 1000)
	_, err := p.Read(buf)
	require.NoError(t, err)
	p.stop()
	p.stop() // idempotent
	_, err = io.ReadFull(p, make([]byte, (readAheadChunks+1)*readAheadMaxChunk))
	require.Error(t, err, "reading past what was produced before stop must fail, not hang")

	// Blocked before the first chunk is filled: a source that never answers until released.
	release := make(chan struct{})
	q := newReadAhead(blocking(release), func() error { return nil })
	go func() { time.Sleep(10 * time.Millisecond); close(release) }()
	q.stop()
	requireGoroutinesBackTo(t, before)
}

// requireGoroutinesBackTo waits a little for the goroutine count to come back to n, then
// fails with every goroutine's stack.
func requireGoroutinesBackTo(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if runtime.NumGoroutine() <= n {
			return
		}
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type blocking chan struct{}

func (b blocking) Read(p []byte) (int, error) { <-b; return 0, io.EOF }
