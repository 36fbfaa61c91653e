# mdqs as a container image: one static binary on scratch (docs/container.md).
#
#   docker build -t mdqs .                       # compiles in golang:1.26.8 (the default route)
#   podman build --format docker -t mdqs .       # the same; --format docker keeps the HEALTHCHECK
#
# Or from a binary built on the host (what CI does: no base image can be
# pulled there; docs/container.md#building-the-image):
#
#   CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o dist/image/mdqs .
#   cp /etc/ssl/certs/ca-certificates.crt dist/image/ && mkdir -p dist/image/data
#   podman build --format docker --build-arg BINARY_FROM=prebuilt -t mdqs .
#
# Only the stage BINARY_FROM names is built (BuildKit and buildah skip the
# stages the final one does not use), so the prebuilt route never pulls
# the Go image. FROM says ${BINARY_FROM:-build} rather than ${BINARY_FROM}:
# buildah 1.28 (podman 4.3) decides which stages are used from the
# --build-arg values alone, skipped the build stage when the ARG's default
# named it, then looked for an image called "build".

ARG BINARY_FROM=build

FROM docker.io/library/golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# VERSION is stamped into `mdqs version` when given (the release's tag).
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w ${VERSION:+-X main.version=$VERSION}" -o /out/mdqs . \
 && mkdir -p /out/data /out/etc/ssl/certs \
 && cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/

FROM scratch AS prebuilt
COPY dist/image/mdqs /out/mdqs
COPY dist/image/ca-certificates.crt /out/etc/ssl/certs/ca-certificates.crt
COPY dist/image/data /out/data

FROM ${BINARY_FROM:-build} AS binary

FROM scratch
ARG VERSION=
LABEL org.opencontainers.image.title="mdqs" \
      org.opencontainers.image.description="Market data query service for the A-share market" \
      org.opencontainers.image.version="${VERSION}"
# The live upstreams are HTTPS: scratch has no CA bundle of its own. The
# time zone needs nothing: the binary embeds tzdata (internal/market).
COPY --from=binary /out/etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# Scratch has no writable folder: /data, the store's and the demo
# terminal's, belongs to the user the server runs as.
COPY --from=binary --chown=65532:65532 /out/data /data
COPY --from=binary /out/mdqs /mdqs
USER 65532:65532
WORKDIR /data
VOLUME /data
EXPOSE 8080
# Inside the container the server listens on every interface (the port
# mapping decides who reaches it), so the public demo client stays off.
# The store is the mode's file in /data: mdqs-demo.db in demo mode (the
# default), mdqs.db once MDQS_SOURCES_DEFAULT names a live source.
ENV MDQS_SERVER_ADDR=0.0.0.0:8080 \
    MDQS_DEMO_ENABLED=false
# Podman keeps a HEALTHCHECK only in the docker image format (--format docker).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["/mdqs", "healthcheck"]
ENTRYPOINT ["/mdqs"]
CMD ["serve"]
