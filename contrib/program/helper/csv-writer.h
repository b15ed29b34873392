/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CSV_WRITER_H
#define CSV_WRITER_H

#include "atomic-file.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief Writes one CSV file (RFC 4180): a header row, then rows of numbers and strings.
 *
 * Doubles are written in the shortest form that reads back to the same value; strings are
 * quoted when they contain a comma, a quote, a line break or edge spaces. Usage:
 *
 *     CsvWriter csv("out/x/fct.csv", {"size_B", "fct_us", "flow"});
 *     csv.Row(4096, 12.5, "h0->h3");
 *
 * A row with the wrong number of fields throws std::logic_error (a programming error).
 *
 * The file is an AtomicFile: rows go into a temporary, and Close() (or the destructor) renames
 * it over \p path, so the file appears whole when the writer is closed, also for series
 * written during the run (pfc.csv, queues.csv, rates.csv), and an earlier run's file stays
 * intact until then. A writer destroyed by an exception discards its rows.
 */
class CsvWriter
{
  public:
    /**
     * \param path file to create (replaced by Close() if it exists)
     * \param columns header names
     * \throw InputError if the file cannot be created
     */
    CsvWriter(const std::string& path, const std::vector<std::string>& columns);
    CsvWriter(CsvWriter&&) = default;            //!< Movable.
    CsvWriter& operator=(CsvWriter&&) = default; //!< Movable.
    /// Close(); a write error ends the program through std::terminate (ProgramOptions reports
    /// the InputError in one line). While an exception unwinds, the rows are discarded.
    ~CsvWriter();

    /** \param v field \return *this */
    CsvWriter& Add(double v);
    /** \param v field \return *this */
    CsvWriter& Add(int64_t v);
    /** \param v field \return *this */
    CsvWriter& Add(uint64_t v);
    /** \param v field \return *this */
    CsvWriter& Add(const std::string& v);
    /** \param v field \return *this */
    CsvWriter& Add(const char* v);

    /** \brief Integers of any width go to the 64-bit overloads. \param v field \return *this */
    template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
    CsvWriter& Add(T v)
    {
        if constexpr (std::is_signed_v<T>)
        {
            return Add(static_cast<int64_t>(v));
        }
        else
        {
            return Add(static_cast<uint64_t>(v));
        }
    }

    /** \brief End the current row. */
    void EndRow();

    /** \brief Write a whole row. \param fields the fields, one per column */
    template <typename... T>
    void Row(const T&... fields)
    {
        CheckRow(sizeof...(fields)); // before writing, so a bad row leaves no partial line
        (Add(fields), ...);
        EndRow();
    }

    /**
     * \brief Flush and close the file, and rename it into place (AtomicFile::Commit).
     * \throw InputError naming the file if a write failed (disk full, ...)
     */
    void Close();

    /** \return the file path */
    const std::string& GetPath() const;

    /** \param s a field \return the field as CSV text, quoted if needed */
    static std::string Quote(const std::string& s);
    /** \param v a number \return the shortest text that reads back to \p v */
    static std::string FormatDouble(double v);

  private:
    /** \param text an already formatted field */
    void Field(const std::string& text);
    /** \param n fields of a whole row \throw std::logic_error unless they fit a new row */
    void CheckRow(std::size_t n) const;

    std::string m_path;     //!< File path.
    AtomicFile m_file;      //!< The file.
    std::size_t m_columns;  //!< Fields per row.
    std::size_t m_field{0}; //!< Fields written in the current row.
};

} // namespace ns3

#endif /* CSV_WRITER_H */
