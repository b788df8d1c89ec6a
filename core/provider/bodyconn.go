package provider

import (
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
)

// WrapDial returns dial with every connection it makes wrapped so that a
// request body built by this package goes out in one vectored write
// (writev) from the pieces it is kept in, the encoded messages in their
// Memos. Without it net/http copies such a body through a 32 KiB buffer it
// allocates for every request (it wraps the body in an io.LimitedReader,
// which hides any faster path): a fifth of the bytes a 60-turn session
// allocated, and a write system call per 32 KiB. Only plain-HTTP
// connections see the difference (a local model server, a proxy); under
// TLS the wrapper only passes the encrypted records through.
func WrapDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &bodyConn{Conn: c}, nil
	}
}

// bodyConn is a client connection whose ReadFrom writes an objectReader's
// pieces with one net.Buffers write. net/http calls ReadFrom only from the
// connection's one writing goroutine, so pieces needs no lock.
type bodyConn struct {
	net.Conn
	pieces [][]byte // reused from request to request
	head   []byte   // a request's head held back to go out with its body; nil: none
	buf    []byte   // head's storage, reused
}

// Write holds back the head of a POST that announces a body, so that it
// goes out in the same write as the body: net/http writes the head of a
// body it does not recognise as in memory on its own, which costs a
// system call and wakes the server once more per request. A head that
// waits for "100 Continue" is written at once (the server must answer it
// before the body comes).
func (c *bodyConn) Write(p []byte) (int, error) {
	if c.head == nil && headWithBody(p) {
		c.buf = append(c.buf[:0], p...) // p is the caller's buffer
		c.head = c.buf
		return len(p), nil
	}
	if c.head == nil {
		return c.Conn.Write(p)
	}
	head := c.head
	c.head = nil
	bufs := net.Buffers{head, p}
	n, err := bufs.WriteTo(c.Conn)
	return int(max(n-int64(len(head)), 0)), err
}

// headWithBody reports whether p is exactly the head of a POST request
// with a Content-Length above zero and no Expect header.
func headWithBody(p []byte) bool {
	if !bytes.HasPrefix(p, []byte("POST ")) {
		return false
	}
	end := bytes.Index(p, []byte("\r\n\r\n"))
	if end < 0 || end != len(p)-4 {
		return false
	}
	length := false
	for _, line := range bytes.Split(p[:end], []byte("\r\n"))[1:] {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return false
		}
		switch {
		case bytes.EqualFold(bytes.TrimSpace(name), []byte("Expect")):
			return false
		case bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")):
			n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			length = err == nil && n > 0
		}
	}
	return length
}

func (c *bodyConn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if or, ok := lr.R.(*objectReader); ok {
			n, err := c.writeObject(or, lr.N)
			lr.N -= n
			return n, err
		}
	}
	if c.head != nil {
		// Through Write, which sends the held head first.
		return io.Copy(struct{ io.Writer }{c}, r)
	}
	// Anything else as the connection itself would copy it (a file by
	// sendfile, say).
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// writeObject writes at most limit bytes of what r has left.
func (c *bodyConn) writeObject(r *objectReader, limit int64) (int64, error) {
	pieces := c.pieces[:0]
	for left := limit; left > 0; {
		for len(r.cur) == 0 {
			if r.cur = r.next(); r.cur == nil {
				break
			}
		}
		if r.cur == nil {
			break
		}
		p := r.cur
		if int64(len(p)) > left {
			p = p[:left]
		}
		pieces = append(pieces, p)
		r.cur = r.cur[len(p):]
		left -= int64(len(p))
	}
	head := len(c.head)
	if head > 0 {
		// The held head goes first, with the body's first piece in the
		// same buffer (one write even where writev is not available).
		if len(pieces) > 0 {
			pieces[0] = append(c.head, pieces[0]...)
		} else {
			pieces = append(pieces, c.head)
		}
		c.head = nil
	}
	bufs := net.Buffers(pieces)
	n, err := bufs.WriteTo(c.Conn)
	n = max(n-int64(head), 0)
	clear(pieces) // WriteTo consumed its copy of the slice; the pieces are the body's
	c.pieces = pieces[:0]
	return n, err
}
