/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef INPUT_ERROR_H
#define INPUT_ERROR_H

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief A mistake in user input (an option, a file, a value): what was given and what was
 * expected.
 *
 * what() reads `<what> (expected <expected>)`, e.g.
 * `--size: "12XB" is not a size (expected e.g. 64MiB, 1GiB, 4096)`. Programs report it as one
 * line and exit with code 2 (ProgramOptions::Fail); models use NS_ASSERT for their own
 * invariants instead.
 */
class InputError : public std::runtime_error
{
  public:
    /**
     * \param what what was wrong, naming the input, e.g. `--size: "12XB" is not a size`
     * \param expected what would have been right, e.g. `e.g. 64MiB, 1GiB, 4096`; may be empty
     */
    InputError(const std::string& what, const std::string& expected);

    /** \return what was wrong */
    const std::string& GetWhat() const;
    /** \return what was expected (may be empty) */
    const std::string& GetExpected() const;

    /**
     * \param context the input's name, e.g. "--size" or "topo.txt:12"
     * \return a copy whose message starts with `<context>: `
     */
    InputError WithContext(const std::string& context) const;

  private:
    std::string m_what;     //!< What was wrong.
    std::string m_expected; //!< What was expected.
};

} // namespace ns3

#endif /* INPUT_ERROR_H */
