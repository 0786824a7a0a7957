// The copy readings of the trip proof (encoder/trip_proof.cpp kCopyReadings)
// as docs/z3.md lists them: their order decides which reading a schedule of
// two shapes gets, so the docs' table must be the code's.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "encoder/trip_copy_readings.h"
#include "tests/common/corpus_files.h"

namespace {

TEST(TripProof, CopyReadingsAreListedInOrder) {
  const std::string doc = cake::test::readText(std::filesystem::path(cake::test::sourceDir()) / "docs" / "z3.md");
  const size_t from = doc.find("### The proof's entry: the copy readings in order");
  ASSERT_NE(from, std::string::npos) << "docs/z3.md has no section on the proof's entry";
  const size_t to = doc.find("\n### ", from + 1);
  const std::string section = doc.substr(from, to == std::string::npos ? std::string::npos : to - from);
  const std::vector<std::string> names = cake::encoder::copyReadingNames();
  ASSERT_FALSE(names.empty());
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string row = "| " + std::to_string(i + 1) + " | " + names[i] + " |";
    EXPECT_NE(section.find(row), std::string::npos) << "docs/z3.md lacks the row " << row;
  }
  const std::string past = "| " + std::to_string(names.size() + 1) + " | ";
  EXPECT_EQ(section.find(past), std::string::npos) << "docs/z3.md lists a reading the code does not ask";
}

}  // namespace
