package provider

import (
	"context"
	"io"
	"net"
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
}

func (c *bodyConn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if or, ok := lr.R.(*objectReader); ok {
			n, err := c.writeObject(or, lr.N)
			lr.N -= n
			return n, err
		}
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
	bufs := net.Buffers(pieces)
	n, err := bufs.WriteTo(c.Conn)
	clear(pieces) // WriteTo consumed its copy of the slice; the pieces are the body's
	c.pieces = pieces[:0]
	return n, err
}
