/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// AtomicFile: a result file appears whole on Commit(), an old one survives every failure, and
// no temporary is left behind; CsvWriter's files likewise.

#include "temp-dir-test.h"

#include "ns3/atomic-file.h"
#include "ns3/csv-writer.h"
#include "ns3/input-error.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <unistd.h>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

/** A fresh temporary directory (TempDirTest), removed at the end of the test. */
class FabricAtomicFile : public TempDirTest
{
  protected:
    /** \return the names in the directory, sorted */
    std::vector<std::string> Names() const
    {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(m_dir))
        {
            names.push_back(entry.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }

    /** \param name a file of the directory \return its path */
    std::string PathOf(const std::string& name) const
    {
        return (m_dir / name).string();
    }
};

} // namespace

TEST_F(FabricAtomicFile, AppearsWholeOnCommitAndLeavesNoTemporary)
{
    const std::string path = PathOf("summary.json");
    AtomicFile f(path);
    EXPECT_TRUE(f.IsOpen());
    EXPECT_EQ(f.GetPath(), path);
    EXPECT_EQ(f.GetTemporaryPath(), AtomicFile::TemporaryPathOf(path));
    EXPECT_EQ(fs::path(f.GetTemporaryPath()).parent_path(), m_dir); // same file system
    f.Stream() << "{\"a\": 1}\n";
    // Until Commit() only the hidden temporary exists.
    EXPECT_FALSE(fs::exists(path));
    EXPECT_EQ(Names(), std::vector<std::string>({".summary.json.tmp." + std::to_string(getpid())}));
    f.Commit();
    EXPECT_FALSE(f.IsOpen());
    EXPECT_EQ(Slurp(path), "{\"a\": 1}\n");
    EXPECT_EQ(Names(), std::vector<std::string>({"summary.json"}));
    f.Commit(); // a second time: nothing
    EXPECT_EQ(Slurp(path), "{\"a\": 1}\n");
}

TEST_F(FabricAtomicFile, ReplacesTheOldFileOnlyOnCommit)
{
    const std::string path = PathOf("fct.csv");
    AtomicFile::Write(path, "old\n");
    {
        AtomicFile f(path);
        f.Stream() << "new\n";
        EXPECT_EQ(Slurp(path), "old\n"); // untouched while the new one is written
        f.Commit();
    }
    EXPECT_EQ(Slurp(path), "new\n");
    EXPECT_EQ(Names(), std::vector<std::string>({"fct.csv"}));
}

TEST_F(FabricAtomicFile, DestroyedWithoutCommitKeepsTheOldFile)
{
    const std::string path = PathOf("pfc.csv");
    AtomicFile::Write(path, "old\n");
    {
        AtomicFile f(path);
        f.Stream() << "half a ro";
    } // an exception or early return: discarded
    EXPECT_EQ(Slurp(path), "old\n");
    EXPECT_EQ(Names(), std::vector<std::string>({"pfc.csv"}));

    AtomicFile g(path);
    g.Stream() << "x";
    g.Discard();
    EXPECT_FALSE(g.IsOpen());
    EXPECT_EQ(Slurp(path), "old\n");
    EXPECT_EQ(Names(), std::vector<std::string>({"pfc.csv"}));
}

TEST_F(FabricAtomicFile, MissingDirectoryIsAnErrorNamingTheFile)
{
    const std::string path = PathOf("gone/summary.json");
    try
    {
        AtomicFile f(path);
        FAIL() << "no error for " << path;
    }
    catch (const InputError& e)
    {
        const std::string what = e.what();
        EXPECT_NE(what.find("cannot write \"" + path + "\""), std::string::npos) << what;
        EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    EXPECT_THROW(AtomicFile::Write(path, "x"), InputError);
    EXPECT_TRUE(Names().empty());
}

TEST_F(FabricAtomicFile, VanishedDirectoryIsAnErrorAtCommit)
{
    const fs::path sub = m_dir / "run";
    fs::create_directory(sub);
    AtomicFile f((sub / "summary.json").string());
    f.Stream() << "{}";
    fs::remove(f.GetTemporaryPath());
    fs::remove(sub);
    EXPECT_THROW(f.Commit(), InputError);
    EXPECT_FALSE(fs::exists(sub));
}

TEST_F(FabricAtomicFile, FailedWriteKeepsTheOldFile)
{
    const std::string path = PathOf("summary.json");
    const std::string old = "{\"complete\": true}\n";
    AtomicFile::Write(path, old);

    // A real write error: files of this process may not grow past 4 KiB (the disk is full,
    // as far as the write is concerned: EFBIG instead of ENOSPC).
    struct rlimit saved;
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
    void (*savedHandler)(int) = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = saved;
    small.rlim_cur = 4096;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    std::string message;
    {
        AtomicFile f(path);
        f.Stream() << std::string(100000, 'x');
        try
        {
            f.Commit();
        }
        catch (const InputError& e)
        {
            message = e.what();
        }
    }
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, savedHandler);

    EXPECT_NE(message.find("cannot write \"" + path + "\": File too large"), std::string::npos)
        << message;
    EXPECT_EQ(Slurp(path), old);
    EXPECT_EQ(Names(), std::vector<std::string>({"summary.json"}));
}

TEST_F(FabricAtomicFile, StreamErrorKeepsTheOldFile)
{
    const std::string path = PathOf("collectives.csv");
    AtomicFile::Write(path, "op,bytes\n");
    AtomicFile f(path);
    f.Stream() << "all_reduce,";
    f.Stream().setstate(std::ios::badbit); // what a failed write leaves
    EXPECT_THROW(f.Commit(), InputError);
    EXPECT_EQ(Slurp(path), "op,bytes\n");
    EXPECT_EQ(Names(), std::vector<std::string>({"collectives.csv"}));
}

TEST_F(FabricAtomicFile, MovedFileCommitsOnce)
{
    const std::string path = PathOf("a.json");
    AtomicFile a(path);
    a.Stream() << "1";
    AtomicFile b(std::move(a));
    EXPECT_FALSE(a.IsOpen()); // NOLINT(bugprone-use-after-move): moved-from is inert
    EXPECT_TRUE(b.IsOpen());
    a.Commit(); // nothing to do
    EXPECT_FALSE(fs::exists(path));
    b.Commit();
    EXPECT_EQ(Slurp(path), "1");
    EXPECT_EQ(Names(), std::vector<std::string>({"a.json"}));
}

TEST_F(FabricAtomicFile, TemporariesAreRemovedAtExit)
{
    const std::string path = PathOf("queues.csv");
    // exit(2) on a user error does not unwind: the exit handler removes the temporary.
    EXPECT_EXIT(
        {
            AtomicFile f(path);
            f.Stream() << "time_us\n";
            std::exit(2);
        },
        ::testing::ExitedWithCode(2),
        "");
    EXPECT_TRUE(Names().empty());
    EXPECT_EQ(AtomicFile::TemporaryPathOf("x.csv"), ".x.csv.tmp." + std::to_string(getpid()));
}

TEST_F(FabricAtomicFile, CsvAppearsWhenClosedAndIsDiscardedByAnException)
{
    const std::string path = PathOf("series.csv");
    AtomicFile::Write(path, "old\n");
    {
        CsvWriter csv(path, {"t", "v"});
        csv.Row(1, 2.5);
        EXPECT_EQ(Slurp(path), "old\n");
        csv.Close();
        EXPECT_EQ(Slurp(path), "t,v\n1,2.5\n");
    }
    {
        CsvWriter csv(path, {"t", "v"});
        csv.Row(2, 3.5);
    } // the destructor closes
    EXPECT_EQ(Slurp(path), "t,v\n2,3.5\n");
    try
    {
        CsvWriter csv(path, {"t", "v"});
        csv.Row(3, 4.5);
        throw std::runtime_error("the run failed");
    }
    catch (const std::runtime_error&)
    {
    }
    EXPECT_EQ(Slurp(path), "t,v\n2,3.5\n");
    EXPECT_EQ(Names(), std::vector<std::string>({"series.csv"}));
}
