// Command mcpserver is the tests' Go MCP server, after the go-sdk's
// examples/server/hello: its greet tool is the example's, and it adds
// tools that try what a confined server must not do (write a file, open a
// TCP connection), a tool that never answers, one that makes another
// appear (a tools/list_changed notification) and one that makes the
// server exit. With -env its greeting also lists its environment; with
// -noisy it writes stray lines that are not JSON-RPC to stdout (at start
// and before each greeting), as careless servers do. With
// -hang it never answers
// at all; with -http ADDR it serves streamable HTTP instead of stdio
// (-any-host: to requests for any Host, not only localhost).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greetArgs struct {
	Name string `json:"name" jsonschema:"the person to greet"`
}

type writeArgs struct {
	Path string `json:"path" jsonschema:"absolute path of the file to write ($NAME is the environment variable NAME)"`
	Text string `json:"text" jsonschema:"what to write"`
}

type dialArgs struct {
	Addr string `json:"addr" jsonschema:"host:port to connect to"`
}

type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func fail(err error) *mcp.CallToolResult {
	r := text(err.Error())
	r.IsError = true
	return r
}

func newServer(env, noisy bool) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hi"}, func(ctx context.Context, req *mcp.CallToolRequest, args greetArgs) (*mcp.CallToolResult, any, error) {
		if noisy {
			fmt.Println("debug: greeting " + args.Name)
		}
		if env {
			return text("Hi " + args.Name + "\n" + strings.Join(os.Environ(), "\n")), nil, nil
		}
		return text("Hi " + args.Name), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "writeFile", Description: "write a file"}, func(ctx context.Context, req *mcp.CallToolRequest, args writeArgs) (*mcp.CallToolResult, any, error) {
		if err := os.WriteFile(os.ExpandEnv(args.Path), []byte(args.Text), 0o644); err != nil {
			return fail(err), nil, nil
		}
		return text("wrote " + args.Path), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "dial", Description: "open a TCP connection"}, func(ctx context.Context, req *mcp.CallToolRequest, args dialArgs) (*mcp.CallToolResult, any, error) {
		c, err := net.Dial("tcp", args.Addr)
		if err != nil {
			return fail(err), nil, nil
		}
		c.Close()
		return text("connected to " + args.Addr), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "hang", Description: "never answer"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	mcp.AddTool(server, &mcp.Tool{Name: "unlock", Description: "make the secret tool appear"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(server, &mcp.Tool{Name: "secret", Description: "the secret"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return text("the secret is 42"), nil, nil
		})
		// The SDK sends list_changed 10 ms after a change, debounced; a
		// client as quick as the tests' scripted model would otherwise
		// start its next prompt first. A real model is slower than that.
		time.Sleep(100 * time.Millisecond)
		return text("unlocked"), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "exit", Description: "exit without answering"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		os.Exit(3)
		return nil, nil, nil
	})
	return server
}

func main() {
	hang := flag.Bool("hang", false, "read requests and never answer")
	addr := flag.String("http", "", "serve streamable HTTP on this address (print the URL) instead of stdio")
	env := flag.Bool("env", false, "list the environment in greet's answer")
	noisy := flag.Bool("noisy", false, "write lines that are not JSON-RPC to stdout")
	anyHost := flag.Bool("any-host", false, "with -http, answer requests for any Host, as a server on the network reached by name does")
	flag.Parse()
	if *hang {
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	}
	server := newServer(*env, *noisy)
	if *noisy {
		fmt.Println("greeter 1.0 starting")
		fmt.Println(`{"unfinished": `)
		fmt.Println("42")
	}
	if *addr != "" {
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("http://%s/mcp\n", ln.Addr())
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{DisableLocalhostProtection: *anyHost})
		log.Fatal(http.Serve(ln, h))
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("Server failed: %v", err)
	}
}
