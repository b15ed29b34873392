/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "gnuplot-script.h"

#include "run-output.h"

namespace ns3
{

GnuplotScript::GnuplotScript(const RunOutput& out,
                             const std::string& author,
                             const std::string& name,
                             uint32_t width,
                             uint32_t height,
                             const std::string& font,
                             bool enhanced)
    : m_out(out),
      m_name(name),
      m_file(out.PathOf(name + ".gp"))
{
    m_file.Stream() << "# gnuplot script written by " << author
                    << "; run it in this folder: gnuplot " << name << ".gp\n"
                    << "set terminal pngcairo size " << width << "," << height << " font '" << font
                    << "'" << (enhanced ? "" : " noenhanced") << "\n"
                    << "set output '" << name << ".png'\n"
                    << "set datafile separator ','\n";
}

std::ostream&
GnuplotScript::Stream()
{
    return m_file.Stream();
}

std::string
GnuplotScript::Render()
{
    m_file.Commit();
    return m_out.RenderGnuplot(m_name + ".gp", m_name + ".png");
}

void
GnuplotScript::Commit()
{
    m_file.Commit();
}

GnuplotScript::TimeAxis::TimeAxis(double endUs)
    : ms(endUs > 2000),
      end(ms ? endUs / 1000 : endUs),
      x(ms ? "($1/1000)" : "1"),
      unit(ms ? "ms" : "us")
{
}

} // namespace ns3
