// Calling the SOR bulk endpoint from Java 11+ with java.net.http.HttpClient, gzip both ways. One file, no build:
//
//     java Client.java http://localhost:8080 students.csv results.csv [windows-1252 [semicolon]]
//
// Exit status: 0 every row ok, 2 some rows are errors (row_status=error), 1 the service refused the file.
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

public class Client {
    public static void main(String[] args) throws Exception {
        String base = args[0].replaceAll("/+$", "");
        Path in = Path.of(args[1]);
        Path out = Path.of(args[2]);
        String charset = args.length > 3 ? args[3] : "utf-8";
        String delimiter = args.length > 4 ? args[4] : "comma";

        // The file goes gzip-compressed; the service counts its limits on the decompressed bytes.
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(compressed)) {
            Files.copy(in, gz);
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v1/calculate/bulk?delimiter=" + delimiter))
                .header("Content-Type", "text/csv; charset=" + charset)
                .header("Content-Encoding", "gzip")
                .header("Accept", "text/csv")
                .header("Accept-Encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(compressed.toByteArray()))
                .build();
        HttpResponse<InputStream> response =
                HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());

        // HttpClient does not decompress: read the body through GZIPInputStream when the answer says gzip.
        boolean gzipped = response.headers().firstValue("Content-Encoding").orElse("").equals("gzip");
        byte[] body;
        try (InputStream raw = response.body(); InputStream data = gzipped ? new GZIPInputStream(raw) : raw) {
            body = data.readAllBytes();
        }
        String text = new String(body, StandardCharsets.UTF_8);
        if (response.statusCode() != 200) {
            System.err.println(response.statusCode() + " " + text); // the error envelope {code, message, ...}
            System.exit(1);
        }
        Files.write(out, body);
        long rows = text.lines().count() - 1;
        // The answer comes in the file's own delimiter (semicolons in, semicolons out) unless ?output_delimiter= asks.
        String sep = delimiter.equals("semicolon") ? ";" : delimiter.equals("tab") ? "\t" : ",";
        long errors = text.lines().skip(1).filter(line -> line.contains(sep + "error" + sep)).count();
        System.out.println(out + ": " + rows + " rows, " + errors + " with errors");
        System.exit(errors == 0 ? 0 : 2);
    }
}
