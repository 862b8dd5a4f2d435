package store

import "context"
import "errors"
import "fmt"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// Tree returns src's tree (k is KeyOf(partition, lang, src)) from the
// cache, its disk tier, or a parse with p (then kept in both), and whether
// it came from the cache or its tier.
func (c *Cache) Tree(ctx context.Context, p matcher.Parser, lang *grammars.Language, k Key, src []byte) (*engine.Tree, bool, error) {
	if t := c.Get(k); t != nil {
		return t, true, nil
	}
	disk := c.Disk()
	dec, _ := p.(treeDecoder)
	if disk != nil && dec != nil {
		if data, ok := disk.load(k); ok {
			t, err := dec.DecodeTree(ctx, lang, src, data)
			if err == nil {
				c.put(k, t)
				return t, true, nil
			}
			if errors.Is(err, engine.ErrBadTree) {
				disk.bad(k)
			}
		}
	}
	t, err := Parse(ctx, p, lang, src)
	if err != nil {
		return nil, false, err
	}
	c.put(k, t)
	if disk != nil && dec != nil {
		disk.storeTree(k, t)
	}
	return t, false, nil
}

// WholeTree is Tree for a whole file's source: it also keeps the file's
// kind set (kinds.go).
func (c *Cache) WholeTree(ctx context.Context, p matcher.Parser, lang *grammars.Language, k Key, src []byte) (*engine.Tree, bool, error) {
	t, hit, err := c.Tree(ctx, p, lang, k, src)
	if err == nil {
		c.NoteKinds(k, t)
	}
	return t, hit, err
}

// Parse parses src with p within the process's parse budget (parsegate.go),
// without storing the tree.
func Parse(ctx context.Context, p matcher.Parser, lang *grammars.Language, src []byte) (*engine.Tree, error) {
	release, err := parses.Load().acquire(ctx, int64(len(src)))
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	t, err := p.Parse(ctx, lang, src)
	release()
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	return t, nil
}
