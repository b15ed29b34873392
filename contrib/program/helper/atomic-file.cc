/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "atomic-file.h"

#include "ns3/assert.h"
#include "ns3/input-error.h"
#include "ns3/log.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <streambuf>
#include <unistd.h>
#include <utility>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AtomicFile");

namespace
{

/**
 * The temporaries not yet committed or discarded, with the process that made each: a forked
 * child (a death test) that exits must not remove its parent's. Never destroyed, so that the
 * exit handler can still read it after static destructors ran.
 */
std::vector<std::pair<pid_t, std::string>>&
Pending()
{
    static auto* pending = new std::vector<std::pair<pid_t, std::string>>();
    return *pending;
}

/** \param tmp a temporary to remove at exit */
void
Remember(const std::string& tmp)
{
    static const bool atExit = [] { return std::atexit(&AtomicFile::RemoveTemporaries) == 0; }();
    (void)atExit;
    Pending().emplace_back(getpid(), tmp);
}

/** \param tmp a temporary that was renamed or removed */
void
Forget(const std::string& tmp)
{
    auto& p = Pending();
    auto it = std::find_if(p.begin(), p.end(), [&tmp](const auto& e) { return e.second == tmp; });
    if (it != p.end())
    {
        p.erase(it);
    }
}

/** \param path the final file \param err an errno value, 0 if unknown \return the error */
InputError
WriteError(const std::string& path, int err)
{
    return InputError("cannot write \"" + path +
                          "\": " + (err != 0 ? std::strerror(err) : "a write failed"),
                      "a writable output directory with free space");
}

} // namespace

class AtomicFile::Buffer : public std::streambuf
{
  public:
    /** \param fd the open temporary, closed by Close() or the destructor */
    explicit Buffer(int fd)
        : m_fd(fd),
          m_data(64 * 1024)
    {
        setp(m_data.data(), m_data.data() + m_data.size());
    }

    ~Buffer() override
    {
        Close();
    }

    Buffer(const Buffer&) = delete;            //!< Owns a file descriptor.
    Buffer& operator=(const Buffer&) = delete; //!< Owns a file descriptor.

    /** \return the errno of the first write or close that failed, 0 if none */
    int GetError() const
    {
        return m_error;
    }

    /**
     * \brief Close the file, first writing what is buffered (see GetError()).
     * \param drain false: drop what is buffered (the file is about to be removed)
     */
    void Close(bool drain = true)
    {
        if (m_fd < 0)
        {
            return;
        }
        if (drain)
        {
            Drain();
        }
        // close() may report a delayed write error (NFS, quota).
        if (::close(m_fd) != 0 && m_error == 0)
        {
            m_error = errno;
        }
        m_fd = -1;
    }

  protected:
    int_type overflow(int_type c) override
    {
        if (!Drain())
        {
            return traits_type::eof();
        }
        if (!traits_type::eq_int_type(c, traits_type::eof()))
        {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }

    int sync() override
    {
        return Drain() ? 0 : -1;
    }

  private:
    /** \return whether everything buffered reached the file */
    bool Drain()
    {
        const char* p = pbase();
        std::size_t left = pptr() - pbase();
        while (left > 0 && m_error == 0 && m_fd >= 0)
        {
            const ssize_t n = ::write(m_fd, p, left);
            if (n < 0 && errno == EINTR)
            {
                continue;
            }
            if (n <= 0)
            {
                m_error = n < 0 ? errno : EIO;
                break;
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        setp(m_data.data(), m_data.data() + m_data.size());
        return m_error == 0 && m_fd >= 0;
    }

    int m_fd;                 //!< The temporary, or -1 once closed.
    int m_error{0};           //!< errno of the first failure.
    std::vector<char> m_data; //!< The put area.
};

AtomicFile::AtomicFile(const std::string& path)
    : m_path(path)
{
    NS_LOG_FUNCTION(this << path);
    const std::string tmp = TemporaryPathOf(path);
    // 0666 before the umask, as std::ofstream creates files; not inherited by gnuplot.
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
    {
        throw WriteError(path, errno);
    }
    m_buffer = std::make_unique<Buffer>(fd);
    m_out = std::make_unique<std::ostream>(m_buffer.get());
    m_tmp = tmp;
    Remember(m_tmp);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_tmp(std::move(other.m_tmp)),
      m_buffer(std::move(other.m_buffer)),
      m_out(std::move(other.m_out))
{
    other.m_tmp.clear();
}

AtomicFile&
AtomicFile::operator=(AtomicFile&& other) noexcept
{
    if (this != &other)
    {
        Discard();
        m_path = std::move(other.m_path);
        m_tmp = std::move(other.m_tmp);
        m_buffer = std::move(other.m_buffer);
        m_out = std::move(other.m_out);
        other.m_tmp.clear();
    }
    return *this;
}

AtomicFile::~AtomicFile()
{
    Discard();
}

std::ostream&
AtomicFile::Stream()
{
    NS_ASSERT_MSG(m_out, "AtomicFile: no stream (moved from)");
    return *m_out;
}

void
AtomicFile::Commit()
{
    NS_LOG_FUNCTION(this << m_path);
    if (m_tmp.empty())
    {
        return;
    }
    const std::string tmp = m_tmp;
    m_tmp.clear();
    m_out->flush();
    m_buffer->Close();
    int err = m_buffer->GetError();
    if (err != 0 || m_out->fail())
    {
        std::remove(tmp.c_str());
        Forget(tmp);
        throw WriteError(m_path, err);
    }
    if (std::rename(tmp.c_str(), m_path.c_str()) != 0)
    {
        err = errno;
        std::remove(tmp.c_str());
        Forget(tmp);
        throw WriteError(m_path, err);
    }
    Forget(tmp);
}

void
AtomicFile::Discard()
{
    if (m_tmp.empty())
    {
        return;
    }
    NS_LOG_FUNCTION(this << m_path);
    m_buffer->Close(false);
    std::remove(m_tmp.c_str());
    Forget(m_tmp);
    m_tmp.clear();
}

bool
AtomicFile::IsOpen() const
{
    return !m_tmp.empty();
}

const std::string&
AtomicFile::GetPath() const
{
    return m_path;
}

const std::string&
AtomicFile::GetTemporaryPath() const
{
    return m_tmp;
}

void
AtomicFile::Write(const std::string& path, const std::string& content)
{
    AtomicFile f(path);
    f.Stream() << content;
    f.Commit();
}

std::string
AtomicFile::TemporaryPathOf(const std::string& path)
{
    // Same directory, so that rename() stays on one file system and is atomic; hidden, so
    // that globs like *.csv do not pick it up; the pid, so that two runs writing into one
    // folder do not write into each other's temporary.
    const std::filesystem::path p(path);
    const std::string name = "." + p.filename().string() + ".tmp." + std::to_string(getpid());
    return (p.parent_path() / name).string();
}

void
AtomicFile::RemoveTemporaries()
{
    const pid_t self = getpid();
    auto& p = Pending();
    for (const auto& [pid, tmp] : p)
    {
        if (pid == self)
        {
            ::unlink(tmp.c_str());
        }
    }
    p.erase(std::remove_if(p.begin(), p.end(), [self](const auto& e) { return e.first == self; }),
            p.end());
}

} // namespace ns3
