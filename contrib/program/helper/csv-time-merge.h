/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CSV_TIME_MERGE_H
#define CSV_TIME_MERGE_H

#include <cstddef>
#include <cstdint>
#include <istream>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief Merges the event logs of the processes of a split run (pfc.csv, ib-credits.csv: CSV
 * files whose first column is a time) into one, by time, a block at a time.
 *
 * A log of a long run can be far larger than the run's memory (a second of WebSearch at 70 %
 * load on a k=8 fat-tree writes 515 MB of pfc.csv), so no process holds a whole one: each
 * sends its rows in blocks of whole lines (ReadBlock), and the merge asks a source for its next
 * block only once it has written every row it had of it. It holds at most one block per
 * source.
 *
 * Each source's rows must be in time order, as a log written while the simulation runs is. The
 * result is then the sources' rows in time order, rows of the same time in source order, rows
 * after `untilUs` left out; the header is the first source's that has one.
 */
class CsvTimeMerge
{
  public:
    /// What partition 0 tells each process of a split run, round by round, while it merges
    /// (RunOutput::MergeCsvAcross): send your next block, not this round, or stop (the merged
    /// file is whole).
    enum Order : uint8_t
    {
        WAIT,
        SEND,
        DONE
    };

    /**
     * \param sources how many sources (processes); each sends blocks until an empty one
     * \param out where the merged file goes
     * \param untilUs rows of later times are left out
     */
    CsvTimeMerge(uint32_t sources,
                 std::ostream& out,
                 double untilUs = std::numeric_limits<double>::infinity());

    /**
     * \brief Take the next block of a source, which Wanted() asked for. A source's first block
     * starts with its header line; an empty block says the source has no more rows.
     */
    void Add(uint32_t source, std::string block);

    /**
     * \brief Write every row that can be written now, and say which sources must send their
     * next block before more can be.
     * \return one flag per source; none set when the merge is done (everything written)
     */
    std::vector<bool> Wanted();

    /**
     * \return the next block of whole lines of `in`: at least `bytes` unless the stream ends
     * first, "" once it has ended; a last line without a newline gets one
     */
    static std::string ReadBlock(std::istream& in, size_t bytes);

  private:
    /// What the merge has of one source.
    struct Source
    {
        std::string block;       //!< the block being merged
        size_t at{0};            //!< where its next row starts
        size_t timeAt{SIZE_MAX}; //!< the row whose time `time` holds (none yet)
        double time{0};          //!< the time of the row at `timeAt`
        bool started{false};     //!< its first block (with the header) has come
        bool ended{false};       //!< it sent its empty block
    };

    /// Whether `s` has a row left in its block (skipping rows after m_untilUs); if so, its
    /// time is in `s.time`.
    bool HasRow(Source& s) const;
    /// The time in the first column of `s`'s next row.
    static double TimeOf(const Source& s);
    /// Write `s`'s next row.
    void WriteRow(Source& s);

    std::vector<Source> m_sources;
    std::ostream& m_out;
    double m_untilUs;
    std::string m_header;
    bool m_headerWritten{false};
};

} // namespace ns3

#endif /* CSV_TIME_MERGE_H */
