// Command precompile compiles every embedded grammar module into wazero's
// compilation cache (the user cache dir's tether/wazero), so tests and the
// first tether run start warm. It is optional: without it each module is
// compiled on its first use and cached then. A second run finds everything
// cached and costs about a second.
//
// A command run by `make grammars`: it imports engine and grammars only, and
// nothing imports it.
package main
