package io.headscope.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.model.testing.families.FamilyModelFolders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lens and saliency commands' contracts on a tiny BERT and a tiny GPT-2. */
class LensSaliencyCommandsTest extends OnTinyModel {

  @Test
  void lensWritesOneRowPerLayerAtTheMaskAndItsLastRowIsPredictsTop() throws Exception {
    Path out = dir.resolve("lens.csv");
    CliHarness.Result r = CliHarness.run("lens", "--model", model.toString(), "--text", "the cat sat on the [MASK] .",
        "--target", "cat", "--contrast", "the", "--top", "3", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = Files.readAllLines(out);
    assertThat(lines.get(0)).isEqualTo("layer,point,position,token,target,target_rank,target_prob,contrast,"
        + "contrast_rank,contrast_prob,top_tokens,top_probs");
    assertThat(lines).hasSize(1 + 3); // embeddings + 2 layers
    assertThat(lines.get(1)).startsWith("0,hook_embed,");
    assertThat(lines.get(3)).startsWith("2,blocks.1.hook_resid_post,");
    assertThat(lines.get(3).split(",")[10].split("\\|")).hasSize(3);
  }

  @Test
  void lensJsonAndDlaOnGpt2() throws Exception {
    Path gpt2 = dir.resolve("gpt2");
    FamilyModelFolders.write("gpt2", gpt2, 5);
    Path dla = dir.resolve("dla.csv");
    CliHarness.Result r = CliHarness.run("lens", "--model", gpt2.toString(), "--text", "the cat sat", "--target", "ca",
        "--contrast", "t", "--dla", "--out", dla.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = Files.readAllLines(dla);
    assertThat(lines.get(0)).isEqualTo("component,layer,head,position,token,target_logit,contrast_logit,logit_diff,"
        + "method");
    assertThat(lines.get(1)).startsWith("embed,0,,").endsWith(",ln_f_scale_frozen");
    Path json = dir.resolve("lens.json");
    r = CliHarness.run("lens", "--model", gpt2.toString(), "--text", "the cat sat", "--target", "ca", "--dla",
        "--out", json.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(Files.readString(json)).contains("\"lens\":[").contains("\"dla\":[");
  }

  @Test
  void dlaOnBertIsTheFrozenScaleLinearisationWithABiasRowAndSaysSo() throws Exception {
    Path dla = dir.resolve("bert-dla.csv");
    CliHarness.Result r = CliHarness.run("lens", "--model", model.toString(), "--text", "the [MASK] sat", "--target",
        "cat", "--contrast", "the", "--dla", "--out", dla.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = Files.readAllLines(dla);
    assertThat(lines.get(1)).startsWith("embed,0,,2,[MASK],").endsWith(",all_scales_frozen");
    assertThat(lines.get(lines.size() - 1)).startsWith("bias,0,,2,");
    assertThat(lines).hasSize(1 + 1 + 2 * (2 + 2) + 1); // header, embed, 2 layers x (2 heads, bias, mlp), bias
    assertThat(r.err()).contains("frozen-scale linearisation").contains("the model's logit difference is");
    // the sum the command prints is the CSV's column's sum
    double sum = lines.stream().skip(1).mapToDouble(l -> Double.parseDouble(l.split(",")[7])).sum();
    String printed = r.err().replaceAll("(?s).*components sum to (-?[0-9.]+);.*", "$1");
    assertThat(sum).isCloseTo(Double.parseDouble(printed), org.assertj.core.api.Assertions.within(1e-5));
    r = CliHarness.run("lens", "--model", model.toString(), "--text", "the cat sat", "--target", "cat", "--dla");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err().strip()).contains("[MASK]").doesNotContain("\n");
  }

  @Test
  void saliencyWritesOneRowPerTokenAndTheCompletenessError() throws Exception {
    Path out = dir.resolve("sal.csv");
    CliHarness.Result r = CliHarness.run("saliency", "--model", model.toString(), "--text", "the cat sat on the [MASK] .",
        "--target", "cat", "--steps", "20", "--baseline", "mask", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = Files.readAllLines(out);
    assertThat(lines.get(0)).isEqualTo("position,token,score");
    assertThat(lines.get(1)).startsWith("0,[CLS],");
    assertThat(r.err()).contains("completeness error");
    Path gpt2 = dir.resolve("gpt2s");
    FamilyModelFolders.write("gpt2", gpt2, 5);
    r = CliHarness.run("saliency", "--model", gpt2.toString(), "--text", "the cat sat", "--target", "ca", "--method",
        "grad-x-input");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("position,token,score");
    r = CliHarness.run("saliency", "--model", gpt2.toString(), "--text", "the cat sat", "--target", "ca", "--baseline",
        "mask");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("no mask token");
  }
}
