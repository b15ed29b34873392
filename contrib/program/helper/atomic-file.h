/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ATOMIC_FILE_H
#define ATOMIC_FILE_H

#include <memory>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup program
 * \brief A result file that appears whole or not at all: written into a temporary file in the
 * same directory (".<name>.tmp.<pid>"), then renamed over the final name by Commit().
 *
 * Researchers publish numbers from these files, so a run that is interrupted, runs out of disk
 * or fails half-way must never leave a truncated summary.json or CSV where the previous run's
 * complete one was: rename(2) within one directory replaces the old file in one step, and the
 * old file stays untouched until then. Usage:
 *
 *     AtomicFile f(out.PathOf("busbw.gp"));
 *     f.Stream() << "set output 'busbw.png'\n";
 *     f.Commit(); // or, for a whole text at once: AtomicFile::Write(path, text)
 *
 * A file destroyed without Commit() (an exception, an early return) is discarded: the temporary
 * is removed and the old file kept. Temporaries still open when the process exits (exit(2) on
 * a user error, an uncaught InputError) are removed by RemoveTemporaries(), which runs at exit;
 * only a crash or SIGKILL can leave one behind, and then the final file is still the old one.
 *
 * There is no fsync(): the threat is a killed or failing process, not a crashed kernel, and a
 * flush to the disk for every small file would cost more than the run's output itself.
 */
class AtomicFile
{
  public:
    /**
     * \brief Create the temporary file for \p path.
     * \param path the final file
     * \throw InputError naming \p path if the temporary cannot be created (e.g. no such
     * directory)
     */
    explicit AtomicFile(const std::string& path);
    AtomicFile(AtomicFile&& other) noexcept;            //!< Movable.
    AtomicFile& operator=(AtomicFile&& other) noexcept; //!< Movable; discards the file it held.
    AtomicFile(const AtomicFile&) = delete;             //!< Owns a temporary file.
    AtomicFile& operator=(const AtomicFile&) = delete;  //!< Owns a temporary file.
    /// Discard() unless committed.
    ~AtomicFile();

    /**
     * \return the stream into the temporary file; it stays the same object when the
     * AtomicFile is moved. Write errors show at Commit().
     */
    std::ostream& Stream();

    /**
     * \brief Flush and close the temporary, check that every write succeeded, then rename it
     * over the final file. Does nothing if already committed or discarded.
     * \throw InputError naming the final file if a write, the close or the rename failed
     * (disk full, file too large, directory gone); the temporary is removed and the old file
     * left as it was
     */
    void Commit();
    /** \brief Close and remove the temporary; the final file stays as it was. */
    void Discard();

    /** \return whether the file is neither committed nor discarded */
    bool IsOpen() const;
    /** \return the final file's path */
    const std::string& GetPath() const;
    /** \return the temporary file's path */
    const std::string& GetTemporaryPath() const;

    /**
     * \brief Write a whole file atomically.
     * \param path the final file \param content its content
     * \throw InputError as the constructor and Commit()
     */
    static void Write(const std::string& path, const std::string& content);
    /**
     * \param path a final file
     * \return the temporary an AtomicFile of this process uses for it
     */
    static std::string TemporaryPathOf(const std::string& path);
    /**
     * \brief Remove every temporary of this process not yet committed or discarded. Runs at
     * exit; the terminate handler of ProgramOptions calls it before _Exit().
     */
    static void RemoveTemporaries();

  private:
    /// The temporary's stream buffer: unlike std::filebuf it keeps the errno of the write that
    /// failed (ENOSPC, EFBIG), for the error message.
    class Buffer;

    std::string m_path;                  //!< Final file.
    std::string m_tmp;                   //!< Temporary; empty once committed, discarded or moved.
    std::unique_ptr<Buffer> m_buffer;    //!< The temporary, open.
    std::unique_ptr<std::ostream> m_out; //!< The stream over m_buffer.
};

} // namespace ns3

#endif /* ATOMIC_FILE_H */
