# Feedlab image: one image, every role (`feedlab start --role ...`).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY schemas/package.json schemas/
COPY sql/package.json sql/
COPY ingest/package.json ingest/
COPY projector/package.json projector/
COPY trainer/package.json trainer/
COPY api/package.json api/
COPY web/package.json web/
COPY test/package.json test/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build -w web && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 FEEDLAB_LOG_FORMAT=json
COPY --from=build /app /app
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=6 CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/feedlab.mjs"]
CMD ["start", "--role", "all"]
