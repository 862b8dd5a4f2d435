package engine

import "context"
import "encoding/binary"
import "errors"
import "fmt"

import "github.com/tetherhq/tether/grammars"

// The binary form of a tree's node table (AppendBinary, DecodeTree), for
// stores that keep trees across processes: "TTRE", a version, the node count
// and the source length (little-endian uint32s), then 16 bytes a node. The
// source is not in it: the caller keeps it and keys the entry by it.
const (
	encMagic   = "TTRE"
	encVersion = 1
	encHeader  = 16
)

// ErrBadTree is wrapped by DecodeTree's error for data that is not a valid
// tree of the language over the source.
var ErrBadTree = errors.New("not a valid encoded tree")

// AppendBinary appends t's node table in its binary form to b.
func (t *Tree) AppendBinary(b []byte) ([]byte, error) {
	le := binary.LittleEndian
	b = append(b, encMagic...)
	b = le.AppendUint32(b, encVersion)
	b = le.AppendUint32(b, uint32(len(t.nodes)))
	b = le.AppendUint32(b, uint32(len(t.src)))
	for i := range t.nodes {
		n := &t.nodes[i]
		b = le.AppendUint16(b, n.kind)
		b = le.AppendUint16(b, n.field)
		b = le.AppendUint32(b, n.start)
		b = le.AppendUint32(b, n.end)
		b = le.AppendUint32(b, n.sub)
	}
	return b, nil
}

// DecodeTree rebuilds a tree of language l over src from data written by
// AppendBinary. Nothing in data is trusted: every node's kind, field, byte
// range and subtree must be valid for the language and the source, or the
// error wraps ErrBadTree. src is kept by the Tree.
func (p *Parser) DecodeTree(ctx context.Context, l *grammars.Language, src, data []byte) (*Tree, error) {
	if l == nil {
		return nil, errNoLanguage
	}
	pl, inst, err := p.instance(ctx, l)
	if err != nil {
		return nil, err
	}
	info := inst.info
	pl.put(inst)
	nodes, err := decodeTable(data, info, len(src))
	if err != nil {
		return nil, fmt.Errorf("engine: %s: %w: %s", l.ID, ErrBadTree, err)
	}
	return newTree(info, src, nodes), nil
}

// DecodeTree is Parser.DecodeTree with the engine's default tenant.
func (e *Engine) DecodeTree(ctx context.Context, l *grammars.Language, src, data []byte) (*Tree, error) {
	return e.fallback.DecodeTree(ctx, l, src, data)
}

func decodeTable(data []byte, info *langInfo, srcLen int) ([]node, error) {
	le := binary.LittleEndian
	if len(data) < encHeader || string(data[:4]) != encMagic {
		return nil, errors.New("no header")
	}
	if v := le.Uint32(data[4:]); v != encVersion {
		return nil, fmt.Errorf("version %d", v)
	}
	n := int(le.Uint32(data[8:]))
	if int(le.Uint32(data[12:])) != srcLen {
		return nil, errors.New("for another source length")
	}
	if n == 0 || n > MaxNodes || len(data) != encHeader+n*NodeBytes {
		return nil, fmt.Errorf("%d nodes in %d bytes", n, len(data))
	}
	nodes := make([]node, n)
	// ends of the open ancestors: each subtree must nest in its parent's
	var ends []int32
	for i := range nodes {
		b := data[encHeader+i*NodeBytes:]
		nd := node{kind: le.Uint16(b), field: le.Uint16(b[2:]), start: le.Uint32(b[4:]), end: le.Uint32(b[8:]), sub: le.Uint32(b[12:])}
		if int(nd.kind) >= len(info.kinds) && nd.kind != errorSymbol {
			return nil, fmt.Errorf("node %d: kind %d", i, nd.kind)
		}
		if int(nd.field) >= len(info.fields) {
			return nil, fmt.Errorf("node %d: field %d", i, nd.field)
		}
		if nd.start > nd.end || int(nd.end) > srcLen {
			return nil, fmt.Errorf("node %d: bytes %d-%d", i, nd.start, nd.end)
		}
		e := nd.subEnd()
		for len(ends) > 0 && ends[len(ends)-1] <= int32(i) {
			ends = ends[:len(ends)-1]
		}
		switch {
		case e <= int32(i) || int(e) > n:
			return nil, fmt.Errorf("node %d: subtree ends at %d", i, e)
		case i == 0 && int(e) != n:
			return nil, errors.New("the root does not hold every node")
		case i > 0 && (len(ends) == 0 || e > ends[len(ends)-1]):
			return nil, fmt.Errorf("node %d: subtree leaves its parent's", i)
		}
		if e > int32(i)+1 {
			ends = append(ends, e)
		}
		nodes[i] = nd
	}
	return nodes, nil
}
