package ledger

import (
	"io"
	"sync"
)

// aheadReader reads a source on a goroutine of its own, straight into frame
// buffers, so that the framer, which bounds the wall time of a JSON
// answer on few cores, never waits in a read: it takes each buffer as it
// comes (arrayFramer.fill), the start of a cut element copied into the
// head room left before the data. What the framer leaves to the decoder
// it reads back as a stream (Read), in order.
type aheadReader struct {
	chunks chan aheadChunk
	free   chan *frameBuf
	done   chan struct{}
	once   sync.Once
	// Read's state: the chunk being read, and from where.
	cur aheadChunk
	off int
}

// aheadChunk is one read of the source: its bytes, in fb's from
// aheadHead on, and the error the read returned with them (io.EOF at the
// end).
type aheadChunk struct {
	fb  *frameBuf
	n   int
	err error
}

// data is the chunk's bytes.
func (c aheadChunk) data() []byte {
	if c.fb == nil {
		return nil
	}
	return c.fb.b[aheadHead : aheadHead+c.n]
}

// aheadHead is the room left before a chunk's bytes for the start of an
// element the buffer before ended in, so that the framer goes on in the
// chunk's own buffer without moving its bytes.
const aheadHead = 64 << 10

// aheadDepth is how many reads wait for the framer.
const aheadDepth = 2

// startReadAhead starts reading src into buffers of free.
func startReadAhead(src io.Reader, free chan *frameBuf) *aheadReader {
	ra := &aheadReader{chunks: make(chan aheadChunk, aheadDepth), free: free, done: make(chan struct{})}
	go ra.run(src)
	return ra
}

// run reads src until it ends or fails, or until stop: each read that
// returns bytes or an error is one chunk.
func (ra *aheadReader) run(src io.Reader) {
	for {
		fb := newFrameBuf(ra.free, frameBufSize)
		b := fb.b[:cap(fb.b)]
		var c aheadChunk
		for {
			n, err := src.Read(b[aheadHead:])
			if n > 0 || err != nil {
				c = aheadChunk{fb: fb, n: n, err: err}
				break
			}
		}
		fb.b = b
		select {
		case ra.chunks <- c:
		case <-ra.done:
			return
		}
		if c.err != nil {
			return
		}
	}
}

// next returns the next chunk, waiting for it.
func (ra *aheadReader) next() aheadChunk {
	return <-ra.chunks
}

// recycle gives a chunk's buffer back once its bytes were copied.
func (ra *aheadReader) recycle(c aheadChunk) {
	if c.fb != nil {
		c.fb.release(ra.free)
	}
}

// stop ends the reads: the goroutine returns at its next chunk (a read
// it is in finishes first).
func (ra *aheadReader) stop() {
	ra.once.Do(func() { close(ra.done) })
}

// Read reads the chunks the framer did not take, in order, then their
// error: the rest of the source as the decoder reads it after a hand-over.
func (ra *aheadReader) Read(p []byte) (int, error) {
	for ra.off == ra.cur.n {
		if ra.cur.err != nil {
			return 0, ra.cur.err
		}
		ra.recycle(ra.cur)
		ra.cur, ra.off = ra.next(), 0
	}
	n := copy(p, ra.cur.data()[ra.off:])
	ra.off += n
	return n, nil
}
