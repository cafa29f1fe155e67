package io.headscope.model.core;

/**
 * T5's relative position buckets ({@code T5Attention._relative_position_bucket} in transformers'
 * {@code modeling_t5.py}): the offset {@code key - query} falls into one of {@code buckets} buckets, and
 * each head learns one score per bucket, added to its attention scores. Half the buckets (all of them
 * in a decoder's self-attention, which sees no later key) take the small offsets one each; the rest
 * cover offsets up to {@code maxDistance} on a logarithmic scale, and every farther offset shares the
 * last bucket. An encoder's buckets are bidirectional: a later key's buckets are the upper half.
 *
 * @param buckets {@code relative_attention_num_buckets}
 * @param maxDistance {@code relative_attention_max_distance}
 */
public record RelativeBuckets(int buckets, int maxDistance) {
  public RelativeBuckets {
    if (buckets < 4 || buckets > 4096 || maxDistance < 2 || maxDistance > 1 << 20) {
      throw new HeadScopeException("config.json: relative_attention_num_buckets must be 4..4096 and "
          + "relative_attention_max_distance 2..1048576, got " + buckets + " and " + maxDistance + ".");
    }
  }

  /**
   * The bucket of a key {@code relative = key - query} positions away. The logarithmic part is computed
   * in float32, operation for operation as torch does it ({@code relative.float() / max_exact}, its log,
   * divided by {@code log(max_distance / max_exact)} as a float, times the buckets left, truncated), so
   * that an offset on a bucket's edge (16, 32, 64 with the defaults) lands where transformers puts it.
   */
  public int bucket(int relative, boolean bidirectional) {
    int n = buckets;
    int base = 0;
    int distance;
    if (bidirectional) {
      n /= 2;
      base = relative > 0 ? n : 0;
      distance = Math.abs(relative);
    } else {
      distance = Math.max(-relative, 0); // later keys (masked anyway) share bucket 0 with the query itself
    }
    int maxExact = n / 2;
    if (distance < maxExact) {
      return base + distance;
    }
    float ratio = (float) distance / (float) maxExact;
    float log = (float) Math.log(ratio);
    float scale = (float) Math.log((double) maxDistance / maxExact);
    float large = log / scale * (float) (n - maxExact);
    return base + Math.min(maxExact + (int) large, n - 1);
  }
}
