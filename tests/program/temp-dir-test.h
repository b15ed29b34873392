/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TEMP_DIR_TEST_H
#define TEMP_DIR_TEST_H

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <stdlib.h>
#include <string>

/**
 * A test with a fresh temporary directory of its own (m_dir), removed at its end: for the tests
 * of what writes files.
 */
class TempDirTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "fabric-test-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        m_dir = pattern;
    }

    void TearDown() override
    {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }

    /** \return the whole content of \p path */
    static std::string Slurp(const std::filesystem::path& path)
    {
        std::ifstream in(path);
        std::ostringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

    std::filesystem::path m_dir; //!< The temporary directory.
};

#endif /* TEMP_DIR_TEST_H */
