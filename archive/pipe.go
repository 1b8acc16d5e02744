package archive

import (
	"io"
	"sync"
)

// Inflating a gzip member is serial, and so is parsing the tar inside it, but the two need
// not wait for each other: readAhead inflates on a goroutine of its own into a few chunks
// while the walk parses headers and hands out entries from the chunks already filled. On a
// machine with two cores a pass then takes about as long as the slower of the two halves
// instead of their sum. Memory is bounded: at most readAheadChunks chunks of at most
// readAheadMaxChunk bytes (under 8 MB; about 3 MB as they double from readAheadMinChunk),
// allocated only when no used chunk is free again. Eight chunks of up to 1 MB read a
// 100,000-entry backup about 20% faster than four of up to 256 KB on this 2-core machine: the
// inflater keeps going while the walk or the garbage collector holds the other core
// (1.09-1.19 s against 1.43-1.45 s per read in alternating runs of, in bench/,
// BENCH_BACKUP=<100,000-entry backup> go test -run '^$' -bench 'Jobs/backupkit-scan$'
// -benchtime 4x ./internal/archivejobs/).
const (
	readAheadChunks   = 8
	readAheadMinChunk = 16 << 10
	readAheadMaxChunk = 1 << 20
)

// chunk is a run of decompressed bytes, with the error that ended the stream after it, if
// any, and the source's own error at that moment (see [source]).
type chunk struct {
	b      []byte
	err    error
	srcErr error
}

// readAhead reads r on its own goroutine. Read must be called from one goroutine only;
// stop ends the producer and waits for it, and is safe to call more than once.
type readAhead struct {
	full   chan chunk
	free   chan []byte
	done   chan struct{}
	exited chan struct{}
	once   sync.Once

	cur    []byte // what is left of the chunk being read
	buf    []byte // the chunk being read, recycled when it is used up
	err    error  // the error that ended the stream, once reached
	srcErr error  // the source's error that came with it
}

// newReadAhead starts reading r. srcErr is called on the producer goroutine when the
// stream ends, to record the caller's reader's own error next to the decompressor's.
func newReadAhead(r io.Reader, srcErr func() error) *readAhead {
	p := &readAhead{
		full:   make(chan chunk, readAheadChunks),
		free:   make(chan []byte, readAheadChunks),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go p.produce(r, srcErr)
	return p
}

func (p *readAhead) produce(r io.Reader, srcErr func() error) {
	defer close(p.exited)
	size, made := readAheadMinChunk, 0
	for {
		// A used chunk if one is free, else a new one while fewer than readAheadChunks
		// exist, else wait for one.
		var buf []byte
		select {
		case buf = <-p.free:
		case <-p.done:
			return
		default:
		}
		if buf == nil && made < readAheadChunks {
			buf = make([]byte, size)
			size = min(2*size, readAheadMaxChunk)
			made++
		}
		if buf == nil {
			select {
			case buf = <-p.free:
			case <-p.done:
				return
			}
		}
		n, err := fill(r, buf[:cap(buf)])
		c := chunk{b: buf[:n], err: err}
		if err != nil {
			c.srcErr = srcErr()
		}
		select {
		case p.full <- c:
		case <-p.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// fill reads into buf until it is full or r fails; io.EOF is returned as is.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.ErrNoProgress
		}
	}
	return n, nil
}

func (p *readAhead) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		if p.buf != nil {
			p.free <- p.buf // never blocks: at most readAheadChunks buffers exist
			p.buf = nil
		}
		var c chunk
		select {
		case c = <-p.full:
		case <-p.exited:
			select {
			case c = <-p.full:
			default:
				return 0, io.ErrClosedPipe // read after stop
			}
		}
		p.buf, p.cur = c.b, c.b
		p.err, p.srcErr = c.err, c.srcErr
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// stop ends the producer and waits until it has returned.
func (p *readAhead) stop() {
	p.once.Do(func() { close(p.done) })
	<-p.exited
}
