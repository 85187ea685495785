/**
 * EIP-2537 multi-scalar-multiplication pricing: `k × multiplication_cost × discount(k) / 1000`
 * for k pairs, with the discount tables of the EIP ("Gas schedule", G1MSM and G2MSM; the
 * last entry applies to every k above 128). k = 0 costs 0.
 */

/** EIP-2537 G1MSM discount per mille for k = 1 … 128 (index k − 1). */
export const G1_MSM_DISCOUNT: readonly number[] = [
  1000, 949, 848, 797, 764, 750, 738, 728, 719, 712, 705, 698, 692, 687, 682, 677,
  673, 669, 665, 661, 658, 654, 651, 648, 645, 642, 640, 637, 635, 632, 630, 627,
  625, 623, 621, 619, 617, 615, 613, 611, 609, 608, 606, 604, 603, 601, 599, 598,
  596, 595, 593, 592, 591, 589, 588, 586, 585, 584, 582, 581, 580, 579, 577, 576,
  575, 574, 573, 572, 570, 569, 568, 567, 566, 565, 564, 563, 562, 561, 560, 559,
  558, 557, 556, 555, 554, 553, 552, 551, 550, 549, 548, 547, 547, 546, 545, 544,
  543, 542, 541, 540, 540, 539, 538, 537, 536, 536, 535, 534, 533, 532, 532, 531,
  530, 529, 528, 528, 527, 526, 525, 525, 524, 523, 522, 522, 521, 520, 520, 519,
];

/** EIP-2537 G2MSM discount per mille for k = 1 … 128 (index k − 1). */
export const G2_MSM_DISCOUNT: readonly number[] = [
  1000, 1000, 923, 884, 855, 832, 812, 796, 782, 770, 759, 749, 740, 732, 724, 717,
  711, 704, 699, 693, 688, 683, 679, 674, 670, 666, 663, 659, 655, 652, 649, 646,
  643, 640, 637, 634, 632, 629, 627, 624, 622, 620, 618, 615, 613, 611, 609, 607,
  606, 604, 602, 600, 598, 597, 595, 593, 592, 590, 589, 587, 586, 584, 583, 582,
  580, 579, 578, 576, 575, 574, 573, 571, 570, 569, 568, 567, 566, 565, 563, 562,
  561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 552, 551, 550, 549, 548, 547,
  546, 545, 545, 544, 543, 542, 541, 541, 540, 539, 538, 537, 537, 536, 535, 535,
  534, 533, 532, 532, 531, 530, 530, 529, 528, 528, 527, 526, 526, 525, 524, 524,
];

/** Per-mille denominator of the discount (EIP-2537 `multiplier = 1000`). */
const DISCOUNT_DENOMINATOR = 1000;

/**
 * Price of an MSM of `pairs` pairs at `perPair` gas each (EIP-2537). Exact in doubles (integer
 * division by remainder): the product stays below 2^53 for any input a block can carry.
 */
export function msmGas(pairs: number, perPair: number, discount: readonly number[]): number {
  if (pairs === 0) return 0;
  const d = pairs <= discount.length ? discount[pairs - 1]! : discount[discount.length - 1]!;
  const total = pairs * perPair * d;
  return (total - (total % DISCOUNT_DENOMINATOR)) / DISCOUNT_DENOMINATOR;
}
