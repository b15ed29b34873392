/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef GNUPLOT_SCRIPT_H
#define GNUPLOT_SCRIPT_H

#include "atomic-file.h"

#include <ostream>
#include <string>

namespace ns3
{

class RunOutput;

/**
 * \ingroup program
 * \brief A plot of a run: a gnuplot script written into the run's folder beside the CSVs it
 * reads, then rendered to a PNG of the same name. The script stays, so a user can edit it and
 * redraw the plot (`cd out/PROGRAM && gnuplot NAME.gp`).
 *
 * The script starts with the lines every plot of the project shares (who wrote it, the
 * pngcairo terminal, the output file, comma-separated data); the caller writes the rest to
 * Stream(), then Render() commits the script (atomically, as every result file) and runs gnuplot.
 */
class GnuplotScript
{
  public:
    /**
     * \param out the run's output folder
     * \param author who writes it, named in its first line (a program, a helper)
     * \param name NAME.gp is the script, NAME.png the plot
     * \param width the PNG's width in pixels
     * \param height its height
     * \param font pngcairo's font, e.g. "sans,9"
     * \param enhanced whether gnuplot reads _ and ^ in texts as sub- and superscripts (off for
     *        texts with names such as all_reduce)
     */
    GnuplotScript(const RunOutput& out,
                  const std::string& author,
                  const std::string& name,
                  uint32_t width,
                  uint32_t height,
                  const std::string& font,
                  bool enhanced = true);

    /// The script, after its shared first lines.
    std::ostream& Stream();

    /**
     * Commit the script without rendering it: for a plot whose data did not come (no flow
     * finished, a run interrupted before it had any: gnuplot refuses an empty plot), so that
     * the folder still holds the script of its plot. Render() commits too; once is enough.
     */
    void Commit();

    /**
     * Commit the script and render the PNG.
     * \return the PNG's path, or one line saying why there is none (RunOutput::RenderGnuplot)
     */
    std::string Render();

    /**
     * \brief The time axis of a plot over a run, from its first column (time_us): in
     * microseconds, or in milliseconds once the run is longer than 2 ms.
     */
    struct TimeAxis
    {
        /// \param endUs the run's end, in microseconds
        explicit TimeAxis(double endUs);

        bool ms;          //!< Whether the axis is in milliseconds.
        double end;       //!< The axis' end, in its unit.
        std::string x;    //!< The x of a `using` clause: "1" or "($1/1000)".
        std::string unit; //!< "us" or "ms".
    };

  private:
    const RunOutput& m_out;  //!< The run's folder.
    std::string m_name;      //!< NAME of NAME.gp and NAME.png.
    AtomicFile m_file;       //!< The script, until committed.
    bool m_committed{false}; //!< Whether m_file is in place.
};

} // namespace ns3

#endif /* GNUPLOT_SCRIPT_H */
