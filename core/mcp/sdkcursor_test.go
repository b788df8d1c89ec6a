package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/gob"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's pagination cursors are written without encoding/gob in pi's
// copy (third_party/mcp-go-sdk/PI-PATCH.md), so that no pi process pays
// for gob's initialisation; they must stay the bytes gob writes for the
// SDK's page token, and a server must page through its tools with them as
// before. Tool names short and long cover gob's one- and multi-byte
// lengths.
func TestSDKCursorsAreGob(t *testing.T) {
	names := []string{"a", "b", "c" + strings.Repeat("x", 130), "d", strings.Repeat("e", 300), "f"}
	srv := sdk.NewServer(&sdk.Implementation{Name: "s", Version: "1"}, &sdk.ServerOptions{PageSize: 2})
	for _, n := range names {
		srv.AddTool(&sdk.Tool{Name: n, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	}
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		res, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		for _, tool := range res.Tools {
			got = append(got, tool.Name)
		}
		if res.NextCursor == "" {
			break
		}
		if want := gobCursor(t, got[len(got)-1]); res.NextCursor != want {
			t.Fatalf("page %d's cursor %q, gob writes %q", page, res.NextCursor, want)
		}
		cursor = res.NextCursor
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("paged through %q, want %q", got, names)
	}
	// A cursor gob wrote for an empty name is read too; one that is not a
	// page token is refused.
	if _, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: gobCursor(t, "")}); err != nil {
		t.Errorf("gob's cursor for an empty name: %v", err)
	}
	for _, bad := range []string{"bm90IGdvYg==", gobCursor(t, "a")[:20], base64.URLEncoding.EncodeToString([]byte{0x22})} {
		if _, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: bad}); err == nil {
			t.Errorf("cursor %q was accepted", bad)
		}
	}
}

// gobCursor is the cursor upstream's SDK wrote: its page token through
// encoding/gob, then base64. gob numbers the types it encodes per process,
// first come first numbered: this matches while nothing else in the test
// binary encodes with gob first, as in pi, where nothing does.
func gobCursor(t *testing.T, uid string) string {
	type pageToken struct{ LastUID string }
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(pageToken{LastUID: uid}); err != nil {
		t.Fatal(err)
	}
	return base64.URLEncoding.EncodeToString(b.Bytes())
}
