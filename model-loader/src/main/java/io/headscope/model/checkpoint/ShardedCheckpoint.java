package io.headscope.model.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A checkpoint as the hub stores a large model: {@code model.safetensors.index.json}, whose {@code
 * weight_map} names the shard ({@code model-00001-of-00002.safetensors}) that holds each tensor. Opens
 * every shard and checks that each holds the tensors the index gives it; a shard's name must be a plain
 * file name beside the index (nothing outside the model's folder is read).
 */
public final class ShardedCheckpoint {
  /** The index's file name. */
  public static final String INDEX = "model.safetensors.index.json";

  private ShardedCheckpoint() {}

  /** Whether {@code weights} is an index rather than a safetensors file. */
  public static boolean isIndex(Path weights) {
    return weights.getFileName() != null && weights.getFileName().toString().endsWith(".index.json");
  }

  /** The shards of the index, opened, in the order of their first tensor; the caller closes them. */
  public static List<Safetensors> open(Path index) {
    Map<String, Set<String>> byShard = read(index);
    List<Safetensors> out = new ArrayList<>();
    try {
      for (Map.Entry<String, Set<String>> e : byShard.entrySet()) {
        Safetensors st = Safetensors.open(index.resolveSibling(e.getKey()));
        out.add(st);
        for (String name : e.getValue()) {
          if (!st.tensors().containsKey(name)) {
            throw new HeadScopeException(index + " places tensor " + name + " in " + e.getKey()
                + ", which does not hold it.");
          }
        }
      }
      return out;
    } catch (RuntimeException e) {
      out.forEach(Safetensors::close);
      throw e;
    }
  }

  /** The shard files the index names, in the order of their first tensor. */
  public static List<String> shardNames(Path index) {
    return List.copyOf(read(index).keySet());
  }

  /**
   * The shard files the index names, in the order of their first tensor, whether they are there or not (what a
   * download fetches): each a plain {@code .safetensors} file name beside the index, or one line why not.
   */
  public static List<String> declaredShards(Path index) {
    return List.copyOf(read(index, false).keySet());
  }

  /** The index's shards and the tensors each should hold. */
  static Map<String, Set<String>> read(Path index) {
    return read(index, true);
  }

  private static Map<String, Set<String>> read(Path index, boolean present) {
    JsonNode map;
    try {
      map = new ObjectMapper().readTree(index.toFile()).path("weight_map");
    } catch (IOException e) {
      throw new HeadScopeException(index + " is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""), e);
    }
    if (!map.isObject() || map.isEmpty()) {
      throw new HeadScopeException(index + " has no weight_map of tensor names to shard files.");
    }
    Map<String, Set<String>> byShard = new java.util.LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String shard = e.getValue().asText("");
      if (!shard.matches("[A-Za-z0-9._-]+\\.safetensors") || shard.startsWith(".")) {
        throw new HeadScopeException(index + " names the shard \"" + shard + "\"; a shard must be a .safetensors file "
            + "beside the index.");
      }
      if (present && !Files.isRegularFile(index.resolveSibling(shard))) {
        throw new HeadScopeException(index + " names the shard " + shard + ", which is not in " + index.getParent()
            + ".");
      }
      byShard.computeIfAbsent(shard, k -> new LinkedHashSet<>()).add(e.getKey());
    }
    return byShard;
  }
}
