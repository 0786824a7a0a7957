#include "tests/common/build_paths.h"

namespace cake_test_paths {
const char* buildSourceDir() { return CAKE_BUILD_SOURCE_DIR; }
const char* buildBinaryDir() { return CAKE_BUILD_BINARY_DIR; }
const char* buildCakeExe() { return CAKE_BUILD_CAKE_EXE; }
}  // namespace cake_test_paths
