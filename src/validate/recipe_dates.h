#pragma once
// The recipe tables' dates now live with the recipes (recipe/recipe_dates.h).
#include "recipe/recipe_dates.h"
