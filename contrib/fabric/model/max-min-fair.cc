/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "max-min-fair.h"

#include <algorithm>
#include <map>

namespace ns3
{

std::vector<double>
MaxMinFairRates(const std::vector<std::vector<std::string>>& paths,
                const std::function<double(const std::string&)>& capacity)
{
    std::vector<double> rate(paths.size(), 0);
    std::vector<bool> frozen(paths.size(), false);
    std::map<std::string, double> left;
    for (const auto& p : paths)
    {
        for (const auto& l : p)
        {
            left[l] = capacity(l);
        }
    }
    for (size_t round = 0; round < paths.size(); ++round)
    {
        // The smallest equal share any link can still give its unfrozen flows.
        double inc = -1;
        for (const auto& [link, cap] : left)
        {
            uint32_t n = 0;
            for (size_t f = 0; f < paths.size(); ++f)
            {
                n += !frozen[f] && std::count(paths[f].begin(), paths[f].end(), link);
            }
            if (n > 0 && (inc < 0 || cap / n < inc))
            {
                inc = cap / n;
            }
        }
        if (inc < 0)
        {
            break;
        }
        for (size_t f = 0; f < paths.size(); ++f)
        {
            if (!frozen[f])
            {
                rate[f] += inc;
                for (const auto& l : paths[f])
                {
                    left[l] -= inc;
                }
            }
        }
        for (size_t f = 0; f < paths.size(); ++f)
        {
            for (const auto& l : paths[f])
            {
                frozen[f] = frozen[f] || left[l] <= capacity(l) * 1e-12;
            }
        }
    }
    return rate;
}

} // namespace ns3
