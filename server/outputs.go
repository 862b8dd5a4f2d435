package server

import "context"
import "crypto/rand"
import "fmt"
import "strings"
import "sync"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/tools"

// Outputs too large to inline in a tool result (an eval cell's plot as
// 70-100k characters of base64, a diff longer than the page a result shows,
// a text the registry had to cut) are kept by
// the run's server and linked from the result instead (MCP resource_link);
// the client reads one with resources/read on the same server: its session,
// or its conversation, which the principal that ran the call alone reaches.
// They go when the run does, and past the store's bounds the oldest go
// first.
const (
	// inlineImageMax is the largest image (its bytes) a result carries
	// inline; larger ones are links.
	inlineImageMax = 48 << 10
	// maxOutputBytes and maxOutputs bound what one run's store keeps.
	maxOutputBytes = 64 << 20
	maxOutputs     = 256
	// outputScheme prefixes the URI of a kept output.
	outputScheme = "tether://output/"
)

// output is one kept output.
type output struct {
	uri, mime string
	text      string
	blob      []byte
}

func (o *output) size() int { return len(o.text) + len(o.blob) }

// outputStore is a run's kept outputs, oldest first.
type outputStore struct {
	mu     sync.Mutex
	byURI  map[string]*output
	order  []string
	bytes  int
	closed bool
}

// keep stores o and returns its URI; "" once the run has ended.
func (st *outputStore) keep(o *output) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || o.size() > maxOutputBytes {
		return ""
	}
	if st.byURI == nil {
		st.byURI = map[string]*output{}
	}
	o.uri = outputScheme + rand.Text()
	st.byURI[o.uri] = o
	st.order = append(st.order, o.uri)
	st.bytes += o.size()
	for len(st.order) > maxOutputs || st.bytes > maxOutputBytes {
		old := st.byURI[st.order[0]]
		delete(st.byURI, st.order[0])
		st.order = st.order[1:]
		st.bytes -= old.size()
	}
	return o.uri
}

// drop forgets every output, for good (the run ended).
func (st *outputStore) drop() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.byURI, st.order, st.bytes, st.closed = nil, nil, 0, true
}

func (st *outputStore) get(uri string) *output {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.byURI[uri]
}

// readOutput answers resources/read of a kept output.
func (s *Server) readOutput(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	o := s.outputs.get(uri)
	if o == nil {
		if strings.HasPrefix(uri, outputScheme) {
			return nil, fmt.Errorf("server: %s is not kept (any more): an output is kept while its run lasts, the newest %d of them up to %d MiB; run the call again to get it anew: %w", uri, maxOutputs, maxOutputBytes>>20, mcp.ResourceNotFoundError(uri))
		}
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: o.uri, MIMEType: o.mime, Text: o.text, Blob: o.blob}}}, nil
}

// toMCP is ToMCP keeping large outputs as resources linked from the result.
func (s *Server) toMCP(r *tools.Result) *mcp.CallToolResult {
	out := ToMCP(r)
	if r == nil {
		return out
	}
	var content []mcp.Content
	n := 0
	for i, c := range r.Content {
		content = append(content, out.Content[i])
		switch {
		case c.Type == tools.ImageContent && len(c.Data) > inlineImageMax:
			uri := s.outputs.keep(&output{mime: c.MIMEType, blob: c.Data})
			if uri == "" {
				continue
			}
			n++
			size := int64(len(c.Data))
			content[len(content)-1] = &mcp.ResourceLink{URI: uri, Name: fmt.Sprintf("image-%d%s", n, imageExt(c.MIMEType)), MIMEType: c.MIMEType, Size: &size,
				Description: fmt.Sprintf("an image of %d bytes, too large to inline; read it with resources/read while the run lasts", size)}
		case c.Type != tools.ImageContent && c.Full != "":
			uri := s.outputs.keep(&output{mime: "text/plain; charset=utf-8", text: c.Full})
			if uri == "" {
				continue
			}
			n++
			size := int64(len(c.Full))
			content = append(content, &mcp.ResourceLink{URI: uri, Name: fmt.Sprintf("output-%d.txt", n), MIMEType: "text/plain", Size: &size,
				Description: fmt.Sprintf("the whole of what the text above shows part of (%d bytes: a long diff, or a text the result had to cut); read it with resources/read while the run lasts", size)})
		}
	}
	out.Content = content
	return out
}

func imageExt(mime string) string {
	switch mime {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/svg+xml":
		return ".svg"
	}
	return ""
}
