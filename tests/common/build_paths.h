// Where a test finds the source tree, the build tree and the `cake` binary.
//
// The paths are compiled into one translation unit (build_paths.cpp), not
// passed as -D to every test file: a definition that names the checkout
// differs between two checkouts (git worktrees), so every test file that
// carried it missed the shared compiler cache in a second checkout
// (docs/contributing.md "Several checkouts on one machine").
#pragma once

namespace cake_test_paths {
const char* buildSourceDir();  // PROJECT_SOURCE_DIR
const char* buildBinaryDir();  // PROJECT_BINARY_DIR
const char* buildCakeExe();    // the `cake` binary the tests were built with ("" without one)
}  // namespace cake_test_paths

#define CAKE_SOURCE_DIR (::cake_test_paths::buildSourceDir())
#define CAKE_BINARY_DIR (::cake_test_paths::buildBinaryDir())
#define CAKE_EXE (::cake_test_paths::buildCakeExe())
