// ir::readSourceFile on paths that are not readable files.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "ir/source.h"

namespace fs = std::filesystem;

// A directory opens as an input stream that reads nothing: it used to come
// back as an empty source file (then "no @cake.schedule function", or
// `cake fmt DIR` formatting nothing with exit 0).
TEST(SourceFile, DirectoryIsAReadError) {
  fs::path d = fs::temp_directory_path() / ("cake_source_test_dir_" + std::to_string(getpid()) + ".cake");
  fs::create_directories(d);
  std::string error;
  cake::ir::SourceFilePtr f = cake::ir::readSourceFile(d.string(), error);
  EXPECT_EQ(f, nullptr);
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  fs::remove_all(d);
}

TEST(SourceFile, MissingFileIsAReadError) {
  std::string error;
  EXPECT_EQ(cake::ir::readSourceFile("/nonexistent/dir/none.cake", error), nullptr);
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}
