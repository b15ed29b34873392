/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MAX_MIN_FAIR_H
#define MAX_MIN_FAIR_H

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief Max-min fair rates of flows over links, by water-filling (Bertsekas and Gallager,
 * "Data Networks", 2nd ed., chapter 6, max-min flow control): raise every unfrozen flow's rate
 * together until a link fills, freeze the flows crossing it, repeat. Each flow gets the rate no
 * flow can exceed without slowing one that is no faster: what an ideal congestion control
 * converges to.
 *
 * \param paths each flow's links, named by any ids (a link listed twice in a path counts twice)
 * \param capacity a link's capacity (any unit; the rates come in the same)
 * \return each flow's fair rate, in the order of paths
 */
std::vector<double> MaxMinFairRates(const std::vector<std::vector<std::string>>& paths,
                                    const std::function<double(const std::string&)>& capacity);

} // namespace ns3

#endif /* MAX_MIN_FAIR_H */
