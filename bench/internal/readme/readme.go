package readme

import "os"
import "strings"

// WriteSection puts table into the file at path between the lines begin
// and end. A file without both markers (or no file) gets heading and the
// marked table at its end, after a blank line.
func WriteSection(path, begin, end, heading, table string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	body := begin + "\n" + table + end
	if i, k := strings.Index(s, begin), strings.Index(s, end); i >= 0 && k > i {
		s = s[:i] + body + s[k+len(end):]
	} else {
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		if s != "" {
			s += "\n"
		}
		s += heading + body + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
