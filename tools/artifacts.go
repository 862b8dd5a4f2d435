package tools

import "errors"
import "fmt"
import "io/fs"
import "os"
import "regexp"
import "strings"
import "sync"

// ArtifactPrefix marks a path that read opens in the run's artifacts area
// rather than the working directory: "artifact:eval-1-stdout.txt".
const ArtifactPrefix = "artifact:"

// MaxArtifactBytes bounds what one run's artifacts area holds; past it,
// output is no longer written there and the result says so.
const MaxArtifactBytes = 1 << 30

// artifactName is the form of an artifact's name: no separators, no dots
// but the extension's, so a name can never lead out of the area.
var artifactName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]*\.txt$`) })

// artifactStore is a run's artifacts area: a private directory outside the
// working directory, made on first write and removed with the run, holding
// output too large for a result (an eval cell's whole stdout). Tools write
// it; read opens its files by name.
type artifactStore struct {
	mu     sync.Mutex
	dir    string
	seq    int
	bytes  int64
	closed bool
}

// write stores data under a fresh name made from stem ("eval-3-stdout")
// and returns the name read takes (with ArtifactPrefix).
func (s *artifactStore) write(stem, data string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("the run is closed")
	}
	if s.bytes+int64(len(data)) > MaxArtifactBytes {
		return "", fmt.Errorf("the run's artifacts area holds its cap of %d MiB", MaxArtifactBytes>>20)
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "tether-artifacts-")
		if err != nil {
			return "", fmt.Errorf("cannot make the run's artifacts area: %w", err)
		}
		s.dir = dir
	}
	s.seq++
	name := fmt.Sprintf("%s-%d.txt", stem, s.seq)
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	if err := root.WriteFile(name, []byte(data), 0o600); err != nil {
		return "", err
	}
	s.bytes += int64(len(data))
	return ArtifactPrefix + name, nil
}

// open opens the artifact path names (with its ArtifactPrefix) for reading.
func (s *artifactStore) open(path string) (*os.File, error) {
	name := strings.TrimPrefix(path, ArtifactPrefix)
	if !artifactName().MatchString(name) {
		return nil, fmt.Errorf("tools: read: %q is not an artifact name: give the name a result gave, such as %seval-stdout-1.txt", name, ArtifactPrefix)
	}
	s.mu.Lock()
	dir := s.dir
	s.mu.Unlock()
	if dir == "" {
		return nil, fmt.Errorf("tools: read: %s does not exist: this run has written no artifacts (they last as long as the run that wrote them)", path)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("tools: read: %s: %w", path, err)
	}
	defer root.Close()
	f, err := root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tools: read: %s does not exist: check the name the result gave (artifacts last as long as the run that wrote them)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("tools: read: %s: %w", path, err)
	}
	return f, nil
}

// close removes the area and everything in it.
func (s *artifactStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}
