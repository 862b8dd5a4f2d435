package chromium

import "context"
import "testing"

import "github.com/chromedp/chromedp"

import "github.com/tetherhq/tether/internal/testenv"

// Context starts headless Chromium for the test and returns a chromedp
// context for one tab. The browser is stopped when the test ends. Chromium is
// a required peer: without it the test skips, or fails under
// TETHER_REQUIRE_PEERS=1.
func Context(t testing.TB) context.Context {
	t.Helper()
	bin := testenv.LookPath("chromium")
	if bin == "" {
		bin = testenv.LookPath("chromium-browser")
	}
	if bin == "" {
		testenv.Missing(t, "chromium")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("chromium: cannot start %s: %v", bin, err)
	}
	return ctx
}
